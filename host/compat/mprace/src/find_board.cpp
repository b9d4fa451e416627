/*
 * find_board.cpp - the original's board number: the N-th ABB in PCI
 * address order, found by libabb's VFIO discovery (abb_vfio_find_all).
 */
#include <memory>

#include <abb/abb_vfio.h>

#include "mprace_priv.h"

namespace mprace {
namespace priv {

int find_board(const std::string &sysfs_root, unsigned number, std::string &bdf)
{
	std::unique_ptr<char[][ABB_BDF_LEN]> bdfs(new char[number + 1][ABB_BDF_LEN]);
	int n = abb_vfio_find_all(sysfs_root.c_str(), nullptr, bdfs.get(), number + 1);

	if (n > (int)number)
		bdf = bdfs[number];
	return n;
}

} /* namespace priv */
} /* namespace mprace */
