/*
 * tau_fit.cpp - tau per size and its fit over the sizes (see tau_fit.h).
 */
#include "tau_fit.h"

#include <algorithm>
#include <cmath>

namespace tau_fit {

double median(std::vector<double> v)
{
	size_t n = v.size();

	if (n == 0)
		return 0.0;
	std::sort(v.begin(), v.end());
	return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

double mad(const std::vector<double> &v)
{
	double m = median(v);
	std::vector<double> d;

	for (double x : v)
		d.push_back(std::fabs(x - m));
	return median(d);
}

estimate per_size(const std::vector<double> &module_ns, const std::vector<double> &plain_ns,
		  double floor_ns)
{
	std::vector<double> d;
	estimate e;
	size_t n = std::min(module_ns.size(), plain_ns.size());

	for (size_t i = 0; i < n; i++)
		d.push_back(module_ns[i] - plain_ns[i]);
	e.n = (unsigned)n;
	if (n == 0)
		return e;
	e.value = median(d);
	/* MAD x 1.4826: sigma of a normal distribution; x 1.2533 / sqrt(n):
	 * the standard error of its median */
	e.error = std::max(floor_ns, 1.2533 * 1.4826 * mad(d) / std::sqrt((double)n));
	return e;
}

double relative_noise(const std::vector<double> &module_ns, const std::vector<double> &plain_ns)
{
	std::vector<double> d;
	size_t n = std::min(module_ns.size(), plain_ns.size());
	double p = median(plain_ns);

	for (size_t i = 0; i < n; i++)
		d.push_back(module_ns[i] - plain_ns[i]);
	return n == 0 || p <= 0 ? 0.0 : 1.4826 * mad(d) / p;
}

double error_floor(double rel, double plain_ns, unsigned n)
{
	return n == 0 ? 1.0 : std::max(1.0, 1.2533 * rel * plain_ns / std::sqrt((double)n));
}

estimate fit(const std::vector<estimate> &sizes)
{
	double sw = 0, swx = 0, chi2 = 0;
	estimate f;

	for (const estimate &s : sizes) {
		double w = 1.0 / (s.error * s.error);

		sw += w;
		swx += w * s.value;
	}
	f.n = (unsigned)sizes.size();
	if (f.n == 0 || sw == 0)
		return f;
	f.value = swx / sw;
	for (const estimate &s : sizes)
		chi2 += (s.value - f.value) * (s.value - f.value) / (s.error * s.error);
	f.chi2_dof = f.n > 1 ? chi2 / (f.n - 1) : 0.0;
	f.error = std::sqrt(1.0 / sw) * std::max(1.0, std::sqrt(f.chi2_dof));
	return f;
}

bool agree(const estimate &a, const estimate &b, double k)
{
	return std::fabs(a.value - b.value) <= k * std::sqrt(a.error * a.error + b.error * b.error);
}

} // namespace tau_fit
