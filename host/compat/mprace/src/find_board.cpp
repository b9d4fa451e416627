/*
 * find_board.cpp - the N-th ABB in PCI address order (the original's board
 * number), read from sysfs.
 */
#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <dirent.h>
#include <vector>

#include "mprace_priv.h"

namespace mprace {
namespace priv {

static unsigned long read_hex(const std::string &path)
{
	unsigned long v = 0;
	FILE *f = std::fopen(path.c_str(), "r");

	if (f) {
		if (std::fscanf(f, "%lx", &v) != 1)
			v = 0;
		std::fclose(f);
	}
	return v;
}

int find_board(const std::string &sysfs_root, unsigned number, std::string &bdf)
{
	std::string dir = sysfs_root + "/bus/pci/devices";
	std::vector<std::string> found;
	DIR *d = opendir(dir.c_str());

	if (!d)
		return -ENOENT;
	while (struct dirent *e = readdir(d)) {
		std::string name = e->d_name, base = dir + "/" + name;

		if (name[0] == '.')
			continue;
		if (read_hex(base + "/vendor") == 0x10dc && read_hex(base + "/device") == 0x0153)
			found.push_back(name);
	}
	closedir(d);
	/* "DDDD:BB:DD.F" with fixed-width hex fields: text order is address order */
	std::sort(found.begin(), found.end());
	if (found.empty())
		return -ENODEV;
	if (number < found.size())
		bdf = found[number];
	return (int)found.size();
}

} /* namespace priv */
} /* namespace mprace */
