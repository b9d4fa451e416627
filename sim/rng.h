/*
 * rng.h - the simulator's pseudo-random numbers (splitmix64): seeded from
 * abbsim_params.seed, so scattered IOVAs and reordered completions repeat
 * exactly for the same seed.
 */
#ifndef ABBSIM_RNG_H
#define ABBSIM_RNG_H

#include <cstdint>

namespace abbsim {

/* The next number of the sequence whose state is s. */
inline uint64_t splitmix(uint64_t &s)
{
	uint64_t z = (s += 0x9e3779b97f4a7c15ull);
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return z ^ (z >> 31);
}

} // namespace abbsim

#endif
