/*
 * testabb_compare.cpp - two testABB logs side by side (testabb_compare.h).
 */
#include "testabb_compare.h"

#include <map>
#include <utility>

/* heading -> its sections in log order */
typedef std::map<std::string, std::vector<const testabb_section *>> by_name;

static by_name index_sections(const std::vector<testabb_section> &v)
{
	by_name m;

	for (const testabb_section &s : v)
		m[s.name].push_back(&s);
	return m;
}

static void add_figures(std::vector<testabb_pair> &out, const std::string &name,
			const testabb_section *sa, const testabb_section *sb)
{
	for (int rd = 0; rd < 2; rd++) {
		const std::map<size_t, double> *ma = sa ? (rd ? &sa->read_mibs : &sa->write_mibs) : nullptr;
		const std::map<size_t, double> *mb = sb ? (rd ? &sb->read_mibs : &sb->write_mibs) : nullptr;
		std::map<size_t, std::pair<const double *, const double *>> sizes;

		if (ma)
			for (const auto &kv : *ma)
				sizes[kv.first].first = &kv.second;
		if (mb)
			for (const auto &kv : *mb)
				sizes[kv.first].second = &kv.second;
		for (const auto &kv : sizes) {
			testabb_pair p;

			p.section = name;
			p.read = rd != 0;
			p.bytes = kv.first;
			p.in_a = kv.second.first != nullptr;
			p.in_b = kv.second.second != nullptr;
			p.a = p.in_a ? *kv.second.first : 0;
			p.b = p.in_b ? *kv.second.second : 0;
			p.rel = p.in_a && p.in_b && p.a > 0 ? (p.b - p.a) / p.a : 0;
			out.push_back(p);
		}
	}
}

std::vector<testabb_pair> compare_testabb_logs(const std::vector<testabb_section> &a,
					       const std::vector<testabb_section> &b)
{
	std::vector<testabb_pair> out;
	by_name ib = index_sections(b);
	std::map<std::string, size_t> seen_a; /* occurrences of a heading in a so far */

	for (const testabb_section &s : a) {
		size_t k = seen_a[s.name]++;
		auto it = ib.find(s.name);
		const testabb_section *sb = it != ib.end() && k < it->second.size() ? it->second[k] : nullptr;

		add_figures(out, s.name, &s, sb);
	}
	std::map<std::string, size_t> seen_b;
	for (const testabb_section &s : b) /* sections (or further occurrences) only b has, in its order */
		if (seen_b[s.name]++ >= seen_a[s.name])
			add_figures(out, s.name, nullptr, &s);
	return out;
}
