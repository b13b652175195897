/*
 * Network descriptions for every switch model, direct and indirect:
 * switches with any number of ports (up to MP_NET_MAXPORTS), terminals
 * attached to switch ports (a terminal injects at one port and ejects
 * at one, the same port in a direct network), and links from a switch's
 * output port to another switch's input port with a latency. Every
 * (switch, port) has an identifier shared by models and statistics.
 * Ports are bidirectional: port p of switch s sends to its peer's port
 * and receives from it, except in unidirectional networks (kncube-uni,
 * butterfly, omega), where a port may only send or only receive.
 *
 * Builders (by spec):
 *   hex:N, hexrect:RxC, torus:RxC  the Cayley-graph meshes of mp_topo,
 *       with its node numbering and directions (ports 0..deg-1 lead to
 *       the neighbour in that direction; the terminal is at port deg)
 *   mesh:RxC        2-D mesh without wrap-around (mp_topo's, numbered
 *                   alike), ports as the torus's (+col, +row, -col,
 *                   -row; no link at the border)
 *   kncube:K,N      bidirectional k-ary n-cube (port 2i: +1 in
 *                   dimension i, port 2i+1: -1), terminal at port 2N
 *   kncube-uni:K,N  unidirectional k-ary n-cube (port i: +1 in
 *                   dimension i), terminal at port N
 *   hypercube:D     2^D nodes, port i flips bit i, terminal at port D
 *   butterfly:A,N   A^N terminals, N stages of A^(N-1) switches of A
 *                   inputs (ports 0..A-1) and A outputs (A..2A-1); a
 *                   terminal injects at stage 0 and ejects at stage N-1
 *   crossbar:N      one switch, terminal t at port t
 *   omega:A,N       A^N terminals, N stages of A^(N-1) switches as the
 *                   butterfly's, with a perfect shuffle (the line's
 *                   base-A digits rotated left by one) before every
 *                   stage: output j of stage-s switch w is line w*A + j
 *   grid:RxC        R x C routers of 5 ports, router r*C + c with
 *                   terminal r*C + c at port 4; ports 0..3 lead to
 *                   +col, +row, -col, -row (none at the border); for
 *                   the synchronous model's localized traffic
 *   tree:A,D        a complete A-ary tree of D levels of routers of
 *                   A + 1 ports, A^D terminals at the leaves: level l
 *                   (0: the root) holds A^l routers numbered from
 *                   (A^l - 1) / (A - 1); port j of router i of a level
 *                   leads to child i*A + j (at the last level, to
 *                   terminal i*A + j), port A to the parent (none at
 *                   the root); routes go up to the nearest common
 *                   ancestor and down
 * Switches of a direct network are numbered as their terminals.
 *
 * Routing functions are tables chosen by name (mp_net_routing):
 * "minimal" gives every output port on a shortest path, "dor" one port,
 * dimension order where the network has dimensions.
 *
 * Ownership: mp_net_new returns a description the caller frees with
 * mp_net_free; it is read-only after creation and may be shared.
 */
#ifndef MP_NET_H
#define MP_NET_H

#include <stdint.h>

#include "mp_topo.h"
#include "mp_util.h"

typedef struct mp_net mp_net;

#define MP_NET_MAXPORTS 256
#define MP_NET_NONE UINT32_MAX

/* What a port is connected to. */
enum { MP_PORT_NONE, MP_PORT_LINK, MP_PORT_TERM };

/* Build a network from a spec (above). Returns NULL with a message. */
mp_net *mp_net_new(const char *spec, mp_err *err);

/* The same from its parts: a family and its one or two numbers (hex:
 * a = n; hexrect, torus, mesh: a rows, b columns; kncube: a = K, b = N;
 * hypercube: a = D; butterfly: a = A, b = N; crossbar: a = N). */
mp_net *mp_net_make(const char *family, uint32_t a, uint32_t b, mp_err *err);

void mp_net_free(mp_net *n);

/* Canonical spec ("torus:8x8") and family ("torus"). */
const char *mp_net_name(const mp_net *n);
const char *mp_net_family(const mp_net *n);

uint32_t mp_net_switches(const mp_net *n);
uint32_t mp_net_terminals(const mp_net *n);

/* Whether every switch has its own terminal (a direct network). */
int mp_net_direct(const mp_net *n);

/* Number of ports of switch sw. */
unsigned mp_net_ports(const mp_net *n, uint32_t sw);

/*
 * What port `port` of switch sw sends to (output side): MP_PORT_LINK
 * with the peer switch and its input port in *peer, *peer_port;
 * MP_PORT_TERM with the terminal in *peer; or MP_PORT_NONE.
 */
int mp_net_out(const mp_net *n, uint32_t sw, unsigned port, uint32_t *peer,
	       unsigned *peer_port);

/* Latency of the link leaving port (units of the model; 1 by default). */
unsigned mp_net_latency(const mp_net *n, uint32_t sw, unsigned port);

/* The identifier of (sw, port), 0 .. mp_net_port_ids() - 1. */
uint32_t mp_net_port_id(const mp_net *n, uint32_t sw, unsigned port);
uint32_t mp_net_port_ids(const mp_net *n);

/* Where terminal t injects and where it ejects. */
void mp_net_term_in(const mp_net *n, uint32_t t, uint32_t *sw, unsigned *port);
void mp_net_term_out(const mp_net *n, uint32_t t, uint32_t *sw, unsigned *port);

/* Rows and columns of the terminals' layout, and a terminal's place in
 * it (for permutation traffic: transpose, neighbour ...). */
unsigned mp_net_rows(const mp_net *n);
unsigned mp_net_cols(const mp_net *n);
void mp_net_coords(const mp_net *n, uint32_t t, unsigned *row, unsigned *col);

/* The Cayley-graph topology of a hex, hexrect or torus network (its
 * offset tables serve the packet model), else NULL. */
const mp_topo *mp_net_topo(const mp_net *n);

/* Hops (links) from terminal src's injection switch to terminal dst's
 * ejection switch. */
unsigned mp_net_dist(const mp_net *n, uint32_t src, uint32_t dst);

/*
 * Localized destinations (--dest local:L): for every terminal t, the
 * terminals u != t with mp_net_dist(t, u) <= L, ascending, in
 * (*list)[(*start)[t] .. (*start)[t + 1]) (arrays the caller frees).
 * Fails with a message when distances are not known (networks of more
 * than 4096 switches) or some terminal has none within L.
 */
int mp_net_local_dests(const mp_net *n, unsigned L, uint32_t **list,
		       uint32_t **start, mp_err *err);

/* A routing function: the output ports of sw toward terminal dst, into
 * ports (at most max); returns how many. */
typedef unsigned (*mp_route_fn)(const mp_net *n, uint32_t sw, uint32_t dst,
				unsigned *ports, unsigned max);

/* The routing function named name ("minimal", "dor"), or NULL. */
mp_route_fn mp_net_routing(const char *name);

#endif
