/*
 * tau_fit.h - the seed's per-buffer overhead tau from repeated, noisy
 * measurements of the plain loop and a module (DABC 2008, seed 000):
 *
 *   tau = size x (1/B_module - 1/B_plain) = t_module - t_plain
 *
 * per buffer, for every size; then one tau fitted as a constant over the
 * sizes (the seed fits the per-size values; its tau is "approximately
 * constant"). Host-time coupling puts the machine's load into device time,
 * so every figure comes with a spread:
 *
 *  - per size, R repetitions give R paired differences t_module - t_plain
 *    (the two runs of a pair are adjacent in time, so slow changes of the
 *    load cancel); tau is their median, its error the standard error of a
 *    median estimated robustly: 1.2533 x 1.4826 x MAD / sqrt(R);
 *  - R is small (a few), and a few differences can agree by chance: a
 *    size's error is never below the typical noise of the whole run, the
 *    median over the sizes of sigma(difference) / t_plain, times that
 *    size's t_plain (the noise of a time per buffer grows with the time);
 *  - the fit is the mean weighted by 1/error^2 over the sizes; its error
 *    is sqrt(1/sum w), scaled up by sqrt(chi2/dof) when the sizes scatter
 *    more than their own errors say (a constant does not describe them).
 */
#ifndef MPRACE_TAU_FIT_H
#define MPRACE_TAU_FIT_H

#include <cstddef>
#include <vector>

namespace tau_fit {

double median(std::vector<double> v);
/* median absolute deviation from the median */
double mad(const std::vector<double> &v);

struct estimate {
	double value = 0; /* ns */
	double error = 0; /* ns, one standard error */
	double chi2_dof = 0; /* fit only: scatter of the sizes over their errors */
	unsigned n = 0;   /* repetitions (per size) or sizes (fit) */
};

/* tau of one size from paired ns-per-buffer figures (same length, R >= 1).
 * floor_ns: the smallest error given (a deterministic run has MAD 0). */
estimate per_size(const std::vector<double> &module_ns, const std::vector<double> &plain_ns,
		  double floor_ns = 1.0);

/* sigma of the paired differences relative to the plain time per buffer
 * (1.4826 x MAD / median(plain)); 0 without pairs */
double relative_noise(const std::vector<double> &module_ns, const std::vector<double> &plain_ns);

/* The smallest error of a size: the standard error of a median of n
 * differences with sigma = rel x plain_ns (at least 1 ns). */
double error_floor(double rel, double plain_ns, unsigned n);

/* The constant fitted to per-size estimates (empty: n = 0). */
estimate fit(const std::vector<estimate> &sizes);

/* True when two estimates agree: |a - b| <= k x sqrt(ea^2 + eb^2). */
bool agree(const estimate &a, const estimate &b, double k = 2.0);

} // namespace tau_fit

#endif
