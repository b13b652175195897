/*
 * stencil: the MPI test program of the mptrace tests, a halo exchange on
 * a periodic 1-D or 2-D grid of ranks with an allreduce per step, whose
 * messages, bytes and collectives are known in closed form (tests/
 * mptrace.bats). P ranks on a grid from MPI_Dims_create; the grid's
 * communicator numbers the ranks backwards (a split of MPI_COMM_WORLD
 * with reversed keys, then MPI_Cart_create), so a trace that confused
 * communicator ranks with world ranks would pair the wrong messages; a
 * split of that one numbering them forwards again, whose rank 0 is not
 * its parent's, holds the final barrier.
 *
 * Per step every rank sends B bytes to each neighbour in dimension 0
 * with MPI_Sendrecv (2 messages), with -d 2 also in dimension 1 with
 * MPI_Isend and MPI_Irecv and MPI_Waitall (-p: persistent requests
 * started with MPI_Startall; -t: completed by polling MPI_Testall), then
 * computes a little and joins an MPI_Allreduce of one double. Before the
 * steps rank 0 broadcasts the parameters (3 ints) on MPI_COMM_WORLD;
 * after them the grid reduces one double to its rank 0, and the forward
 * split meets in a barrier. So with P ranks and N steps: 2 d P N
 * messages of B bytes, N allreduces, one broadcast, one reduce, one
 * barrier per rank; 3 communicators made and freed.
 *
 * Usage: stencil [-ApTt] [-d 1|2] [-n steps] [-b bytes] [-w work]
 * (-T prints MPI_Wtick, rank 0's time in the steps' loop and its peak
 * resident memory, for make bench; -A makes rank 0 call MPI_Abort after the first
 * step, a program that never reaches MPI_Finalize). Rank 0 prints one
 * line: the grid and the counts.
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static void usage(void)
{
	fprintf(stderr, "usage: stencil [-ApTt] [-d 1|2] [-n steps] [-b bytes] [-w work]\n");
	exit(2);
}

static long num(const char *s, long lo, long hi)
{
	char *end;
	long v = strtol(s, &end, 10);
	if (*s == '\0' || *end != '\0' || v < lo || v > hi)
		usage();
	return v;
}

int main(int argc, char **argv)
{
	int par[3] = { 2, 10, 1024 }; /* dims, steps, bytes */
	long work = 1000;
	int persistent = 0, poll = 0, tick = 0, abort_early = 0, c;
	int rank, size, dims[2] = { 0, 0 }, periods[2] = { 1, 1 };
	MPI_Comm rev, grid, fwd;

	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Comm_size(MPI_COMM_WORLD, &size);
	while ((c = getopt(argc, argv, "Ab:d:n:ptTw:")) != -1) {
		switch (c) {
		case 'A': abort_early = 1; break;
		case 'b': par[2] = (int)num(optarg, 1, 1 << 24); break;
		case 'd': par[0] = (int)num(optarg, 1, 2); break;
		case 'n': par[1] = (int)num(optarg, 0, 1000000); break;
		case 'p': persistent = 1; break;
		case 't': poll = 1; break;
		case 'T': tick = 1; break;
		case 'w': work = num(optarg, 0, 1000000000); break;
		default: usage();
		}
	}
	MPI_Bcast(par, 3, MPI_INT, 0, MPI_COMM_WORLD);
	int nd = par[0], steps = par[1], bytes = par[2];

	MPI_Comm_split(MPI_COMM_WORLD, 0, size - 1 - rank, &rev);
	MPI_Dims_create(size, nd, dims);
	MPI_Cart_create(rev, nd, dims, periods, 0, &grid);
	MPI_Comm_split(rev, 0, rank, &fwd);

	char *out = malloc(4 * (size_t)bytes), *in = malloc(4 * (size_t)bytes);
	if (!out || !in) {
		fprintf(stderr, "stencil: out of memory\n");
		MPI_Abort(MPI_COMM_WORLD, 1);
	}
	memset(out, rank & 0xff, 4 * (size_t)bytes);
	int lo0, hi0, lo1 = MPI_PROC_NULL, hi1 = MPI_PROC_NULL;
	MPI_Cart_shift(grid, 0, 1, &lo0, &hi0);
	if (nd == 2)
		MPI_Cart_shift(grid, 1, 1, &lo1, &hi1);
	MPI_Request req[4];
	if (nd == 2 && persistent) {
		MPI_Recv_init(in + 2 * bytes, bytes, MPI_BYTE, lo1, 2, grid, &req[0]);
		MPI_Recv_init(in + 3 * bytes, bytes, MPI_BYTE, hi1, 3, grid, &req[1]);
		MPI_Send_init(out + 2 * bytes, bytes, MPI_BYTE, hi1, 2, grid, &req[2]);
		MPI_Send_init(out + 3 * bytes, bytes, MPI_BYTE, lo1, 3, grid, &req[3]);
	}

	double local = rank, sum = 0, acc = 0;
	double t0 = MPI_Wtime();
	for (int s = 0; s < steps; s++) {
		MPI_Sendrecv(out, bytes, MPI_BYTE, hi0, 0, in, bytes, MPI_BYTE, lo0, 0, grid,
			     MPI_STATUS_IGNORE);
		MPI_Sendrecv(out + bytes, bytes, MPI_BYTE, lo0, 1, in + bytes, bytes, MPI_BYTE,
			     hi0, 1, grid, MPI_STATUS_IGNORE);
		if (nd == 2) {
			if (persistent) {
				MPI_Startall(4, req);
			} else {
				MPI_Irecv(in + 2 * bytes, bytes, MPI_BYTE, lo1, 2, grid, &req[0]);
				MPI_Irecv(in + 3 * bytes, bytes, MPI_BYTE, hi1, 3, grid, &req[1]);
				MPI_Isend(out + 2 * bytes, bytes, MPI_BYTE, hi1, 2, grid, &req[2]);
				MPI_Isend(out + 3 * bytes, bytes, MPI_BYTE, lo1, 3, grid, &req[3]);
			}
			if (poll) {
				int done = 0;
				while (!done)
					MPI_Testall(4, req, &done, MPI_STATUSES_IGNORE);
			} else {
				MPI_Waitall(4, req, MPI_STATUSES_IGNORE);
			}
		}
		for (long w = 0; w < work; w++) /* the computation */
			acc += (double)(in[w % (4 * bytes)] ^ (char)w) * 1e-9;
		local += acc * 1e-12;
		MPI_Allreduce(&local, &sum, 1, MPI_DOUBLE, MPI_SUM, grid);
		if (abort_early && rank == 0)
			MPI_Abort(MPI_COMM_WORLD, 3);
	}
	double loop = MPI_Wtime() - t0;
	if (nd == 2 && persistent)
		for (int i = 0; i < 4; i++)
			MPI_Request_free(&req[i]);
	double total = 0;
	MPI_Reduce(&sum, &total, 1, MPI_DOUBLE, MPI_SUM, 0, grid);
	MPI_Barrier(fwd);
	if (rank == 0) {
		printf("stencil: ranks %d grid %dx%d steps %d bytes %d messages %ld\n", size,
		       dims[0], nd == 2 ? dims[1] : 1, steps, bytes, 2L * nd * size * steps);
		if (tick) {
			char line[256];
			FILE *f = fopen("/proc/self/status", "r");
			printf("stencil: MPI_Wtick %g\n", MPI_Wtick());
			printf("stencil: loop %.6f s\n", loop);
			while (f && fgets(line, sizeof line, f))
				if (strncmp(line, "VmHWM:", 6) == 0)
					printf("stencil: peak RSS %s", line + 6);
			if (f)
				fclose(f);
		}
	}
	MPI_Comm_free(&fwd);
	MPI_Comm_free(&grid);
	MPI_Comm_free(&rev);
	free(out);
	free(in);
	MPI_Finalize();
	return 0;
}
