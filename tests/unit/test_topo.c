/*
 * Unit tests of the topologies' links: every link is symmetric (the
 * neighbour of x in direction d has x as its neighbour in the opposite
 * direction), which the fabric relies on to find, from a node, the
 * packets its neighbours hold for it (retry loops, --retry notify).
 */
#include "mp_topo.h"
#include "t.h"

static void test_symmetric(const char *spec)
{
	mp_err err;
	mp_topo *t = mp_topo_new(spec, &err);
	T_OK(t != NULL, "%s builds", spec);
	if (!t)
		return;
	unsigned deg = mp_topo_degree(t), bad = 0, opp = 0;
	for (unsigned d = 0; d < deg; d++)
		if (mp_topo_opposite(t, mp_topo_opposite(t, d)) != d ||
		    mp_topo_opposite(t, d) == d)
			opp++;
	for (uint32_t x = 0; x < mp_topo_nodes(t); x++)
		for (unsigned d = 0; d < deg; d++) {
			uint32_t y = mp_topo_neighbor(t, x, d);
			if (y >= mp_topo_nodes(t) ||
			    mp_topo_neighbor(t, y, mp_topo_opposite(t, d)) != x)
				bad++;
		}
	T_OK(opp == 0, "%s: the opposite of a direction is another, and its "
	     "opposite is the first (%u wrong)", spec, opp);
	T_OK(bad == 0, "%s: every link leads back the opposite way (%u "
	     "wrong of %u)", spec, bad, mp_topo_nodes(t) * deg);
	mp_topo_free(t);
}

int main(void)
{
	const char *specs[] = {
		"hex:2", "hex:3", "hex:6", "hex:9", "hex:16",
		"hexrect:3x3", "hexrect:3x5", "hexrect:4x7", "hexrect:8x8",
		"torus:3x3", "torus:3x4", "torus:5x9", "torus:8x8",
	};
	for (size_t i = 0; i < sizeof specs / sizeof specs[0]; i++)
		test_symmetric(specs[i]);
	return t_done();
}
