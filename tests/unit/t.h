/*
 * A tiny TAP producer for the C unit tests: each check prints
 * "ok N - name" or "not ok N - name"; t_done() prints the plan and
 * returns the exit status.
 */
#ifndef T_H
#define T_H

#include <stdio.h>
#include <stdlib.h>

static int t_n, t_fail;

#define T_OK(cond, ...) do { \
	int t_c_ = (cond) ? 1 : 0; /* evaluated once */ \
	t_n++; \
	if (t_c_) { printf("ok %d - ", t_n); } \
	else { t_fail++; printf("not ok %d - ", t_n); } \
	printf(__VA_ARGS__); \
	printf("\n"); \
	if (!t_c_) printf("#   failed at %s:%d: %s\n", __FILE__, __LINE__, #cond); \
} while (0)

static inline int t_done(void)
{
	printf("1..%d\n", t_n);
	return t_fail ? 1 : 0;
}

/* The whole of a file in a new buffer (*len its size); NULL if it cannot
 * be read. */
static inline unsigned char *t_slurp(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	unsigned char *buf = NULL;
	size_t cap = 0;
	*len = 0;
	if (!f)
		return NULL;
	for (;;) {
		if (*len == cap) {
			cap = cap ? 2 * cap : 4096;
			unsigned char *nb = realloc(buf, cap);
			if (!nb) {
				free(buf);
				fclose(f);
				return NULL;
			}
			buf = nb;
		}
		size_t n = fread(buf + *len, 1, cap - *len, f);
		if (n == 0)
			break;
		*len += n;
	}
	fclose(f);
	return buf;
}

#endif
