/*
 * Replays the fuzz corpora without libFuzzer: every input kept in
 * tests/fuzz/regress/<target>/ (the crashes and broken contracts the
 * fuzzers found, after their fix) and every seed in
 * tests/fuzz/corpus/<target>/ goes through the same code as the fuzz
 * target (tests/fuzz/fuzz_*.c, included here) and must pass its
 * contracts. Run from the repository root, as tests/run.sh does.
 */
#define FUZZ_DRIVER 1

#include <dirent.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../fuzz/fuzz_stream.c"
#include "../fuzz/fuzz_csv.c"
#include "../fuzz/fuzz_args.c"
#include "t.h"

struct target {
	const char *name;
	void (*fn)(const uint8_t *data, size_t size);
};

static const struct target targets[] = {
	{ "fuzz_stream", fuzz_stream },
	{ "fuzz_csv", fuzz_csv },
	{ "fuzz_args", fuzz_args },
};

static int visible(const struct dirent *e)
{
	return e->d_name[0] != '.' && strcmp(e->d_name, "README") != 0;
}

/*
 * Run target t on every file of dir. each: one TAP line per file (the
 * regression inputs); otherwise one line for the directory. Returns the
 * number of files, -1 when the directory is missing.
 */
static int replay_dir(const struct target *t, const char *kind, int each)
{
	char dir[256];
	struct dirent **ents;
	snprintf(dir, sizeof dir, "tests/fuzz/%s/%s", kind, t->name);
	int n = scandir(dir, &ents, visible, alphasort);
	if (n < 0)
		return -1;
	int bad = 0;
	char first_bad[600] = "";
	for (int i = 0; i < n; i++) {
		char path[600];
		size_t len;
		snprintf(path, sizeof path, "%s/%s", dir, ents[i]->d_name);
		unsigned char *data = t_slurp(path, &len);
		if (!data) {
			T_OK(0, "%s: cannot read %s", t->name, path);
			free(ents[i]);
			continue;
		}
		/* Name the input first, so a crash shows which it was. */
		printf("# %s %s (%zu bytes)\n", t->name, path, len);
		fflush(stdout);
		fuzz_failures = 0;
		t->fn(data, len);
		free(data);
		if (each)
			T_OK(fuzz_failures == 0, "%s: %s/%s", t->name, kind,
			     ents[i]->d_name);
		else if (fuzz_failures && !bad++)
			snprintf(first_bad, sizeof first_bad, "%s", path);
		free(ents[i]);
	}
	free(ents);
	if (!each)
		T_OK(bad == 0, "%s: %d %s inputs keep the contracts%s%s", t->name, n,
		     kind, bad ? "; first failing: " : "", first_bad);
	return n;
}

int main(void)
{
	for (size_t i = 0; i < sizeof targets / sizeof targets[0]; i++) {
		const struct target *t = &targets[i];
		int n = replay_dir(t, "corpus", 0);
		T_OK(n > 0, "%s: seed corpus tests/fuzz/corpus/%s is there (%d "
		     "inputs)", t->name, t->name, n);
		/* No regression inputs yet is fine: nothing was found. */
		replay_dir(t, "regress", 1);
	}
	return t_done();
}
