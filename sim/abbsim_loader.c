/*
 * abbsim_loader.c - loads libabbsim.so and resolves its C interface
 * (abbsim_loader.h).
 */
#include "abbsim_loader.h"

#include <dlfcn.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>

int abbsim_api_load(const char *path, int flags, struct abbsim_api *api, char *msg, size_t n)
{
	static const struct {
		const char *name;
		size_t off;
	} syms[] = {
#define ABBSIM_API_SYM(f) {"abbsim_" #f, offsetof(struct abbsim_api, f)},
		ABBSIM_API_FUNCS(ABBSIM_API_SYM)
#undef ABBSIM_API_SYM
	};
	void *h;

	memset(api, 0, sizeof *api);
	h = dlopen(path, flags);
	if (!h) {
		const char *e = dlerror();

		snprintf(msg, n, "%s", e ? e : "dlopen failed");
		return -ENODEV;
	}
	for (size_t i = 0; i < sizeof syms / sizeof syms[0]; i++) {
		void *f = dlsym(h, syms[i].name);

		if (!f) {
			snprintf(msg, n, "%s has no symbol %s: it is older than this program; rebuild "
				 "both (make all)", path, syms[i].name);
			dlclose(h);
			memset(api, 0, sizeof *api);
			return -ELIBBAD;
		}
		memcpy((char *)api + syms[i].off, &f, sizeof f);
	}
	if (api->abi_version() != ABBSIM_ABI_VERSION) {
		snprintf(msg, n, "%s has ABI version %u, this program needs %u: rebuild both "
			 "(make all)", path, api->abi_version(), ABBSIM_ABI_VERSION);
		dlclose(h);
		memset(api, 0, sizeof *api);
		return -ELIBBAD;
	}
	api->handle = h;
	return 0;
}

void abbsim_api_unload(struct abbsim_api *api)
{
	if (api->handle)
		dlclose(api->handle);
	memset(api, 0, sizeof *api);
}
