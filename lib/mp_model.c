/*
 * The registry of switch models: every model the driver can run, by
 * name. The first one is the default.
 */
#include "mp_model.h"

#include <string.h>

static const struct mp_model_ops *const models[] = {
	&mp_model_packet,
	&mp_model_flit,
	&mp_model_ncube,
};

#define NMODELS (sizeof models / sizeof models[0])

const struct mp_model_ops *mp_model_find(const char *name)
{
	for (size_t i = 0; i < NMODELS; i++)
		if (strcmp(models[i]->name, name) == 0)
			return models[i];
	return NULL;
}

const struct mp_model_ops *mp_model_at(size_t i)
{
	return i < NMODELS ? models[i] : NULL;
}
