/*
 * Topologies of direct networks as Cayley graphs of Z_N or Z_R x Z_C:
 * every node sees the same neighbourhood, so distances and the best,
 * no-farther and deterministic directions depend only on the offset
 * from source to destination and are tables of N entries, not N^2.
 *
 * Kinds (by name):
 *   hex:n        C-wrapped hexagonal mesh E_n, 3n(n-1)+1 nodes, six
 *                directions +1, +(3n-1), +(3n-2), -1, -(3n-1), -(3n-2)
 *                in circular order (SPEC 3.1).
 *   hexrect:RxC  R x C wrapped mesh with six links: (0,+1), (+1,+1),
 *                (+1,0), (0,-1), (-1,-1), (-1,0) in circular order
 *                (the hexagonally connected torus of SPEC 3.2).
 *   torus:RxC    R x C torus, four links: (0,+1), (+1,0), (0,-1),
 *                (-1,0); dimension order (columns first) for the
 *                deterministic route.
 *   mesh:RxC     R x C 2-D mesh without wrap-around (sides >= 2), the
 *                torus's four directions, dimension order (columns
 *                first); not a Cayley graph: its tables are indexed by
 *                the signed offset (see mp_topo_offset), and the links
 *                across the edges, which the directions imply, lie on
 *                no route.
 *
 * Ownership: mp_topo_new returns a topology the caller frees with
 * mp_topo_free; it is read-only after creation and may be shared.
 */
#ifndef MP_TOPO_H
#define MP_TOPO_H

#include <stdint.h>

#include "mp_util.h"

typedef struct mp_topo mp_topo;

/* Largest degree of any topology here. */
#define MP_TOPO_MAXDEG 6

/*
 * Build a topology from a spec: "hex:6", "hexrect:8x8", "torus:8x8"
 * ("torus:8" means 8x8). Returns NULL with a message in err.
 */
mp_topo *mp_topo_new(const char *spec, mp_err *err);

/*
 * The same from its parts: family "hex" with a = n (E_n), or "hexrect"
 * or "torus" with a rows and b columns. NULL with a message in err.
 */
mp_topo *mp_topo_make(const char *family, uint32_t a, uint32_t b, mp_err *err);

void mp_topo_free(mp_topo *t);

/* Canonical spec, e.g. "hex:6". */
const char *mp_topo_name(const mp_topo *t);

/* Family name: "hex", "hexrect", "torus" or "mesh". */
const char *mp_topo_family(const mp_topo *t);

uint32_t mp_topo_nodes(const mp_topo *t);
unsigned mp_topo_degree(const mp_topo *t);
unsigned mp_topo_diameter(const mp_topo *t);

/* Rows and columns (hex: 1 x N). */
unsigned mp_topo_rows(const mp_topo *t);
unsigned mp_topo_cols(const mp_topo *t);

/* Neighbour of node in direction dir (0 .. degree-1). */
uint32_t mp_topo_neighbor(const mp_topo *t, uint32_t node, unsigned dir);

/* The direction that leads back: neighbor(neighbor(x, d), opposite(d)) == x. */
unsigned mp_topo_opposite(const mp_topo *t, unsigned dir);

/* Hop distance from src to dst. */
unsigned mp_topo_dist(const mp_topo *t, uint32_t src, uint32_t dst);

/* Offset index of dst as seen from src (0 .. offsets-1; 0 means
 * src == dst): (dr mod R', dc mod C') with R' x C' the offset space,
 * R x C for the Cayley graphs, (2R-1) x (2C-1) for the mesh. */
uint32_t mp_topo_offset(const mp_topo *t, uint32_t src, uint32_t dst);

/* Number of offsets: the length of the tables (the node count but for
 * the mesh). */
uint32_t mp_topo_offsets(const mp_topo *t);
/* Tables by offset: distance, best-direction mask, no-farther mask, the
 * deterministic direction (undefined at offset 0). */
const uint8_t *mp_topo_dist_table(const mp_topo *t);
const uint8_t *mp_topo_best_table(const mp_topo *t);
const uint8_t *mp_topo_nofarther_table(const mp_topo *t);
const uint8_t *mp_topo_det_table(const mp_topo *t);

/* Bit mask of directions that bring a packet at src closer to dst. */
unsigned mp_topo_best(const mp_topo *t, uint32_t src, uint32_t dst);

/* Bit mask of the no-farther directions: non-best directions adjacent
 * (in circular order) to a best one. */
unsigned mp_topo_nofarther(const mp_topo *t, uint32_t src, uint32_t dst);

/* The one direction of the deterministic (single minimal path) route. */
unsigned mp_topo_det(const mp_topo *t, uint32_t src, uint32_t dst);

/* Mean distance from a node to the other N-1 nodes. */
double mp_topo_mean_dist(const mp_topo *t);

/* Number of nodes at distance d from any node (d = 0 gives 1). */
uint32_t mp_topo_count_at(const mp_topo *t, unsigned d);

/* Row and column of a node (hex: row 0, column = node). */
void mp_topo_coords(const mp_topo *t, uint32_t node, unsigned *row,
		    unsigned *col);

#endif
