// SPDX-License-Identifier: GPL-2.0
/*
 * mpi_check: what an MPI job first does, with every element checked.
 *
 *   mpirun -np 2 ... mpi_check [ITERATIONS]
 *
 * 1. MPI_Allreduce (sum) of 64 Ki doubles, each rank contributing values
 *    that depend on its rank and the element, checked on every rank.
 * 2. A ping-pong of 4 MiB between ranks 0 and 1, ITERATIONS (default 10)
 *    times: rank 0 sends a pattern seeded by the iteration, rank 1 checks
 *    it, adds one to every byte and sends it back, rank 0 checks that.
 * Prints "mpi_check: ok ..." on rank 0 and exits 0, or names the first bad
 * element and calls MPI_Abort.
 */
#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define NRED	(64 * 1024)
#define PPLEN	(4 * 1024 * 1024)

static int rank, size;

static void die(const char *what, long idx, double got, double want)
{
	fprintf(stderr, "mpi_check: rank %d: %s: element %ld is %g, want %g\n",
		rank, what, idx, got, want);
	MPI_Abort(MPI_COMM_WORLD, 1);
}

static uint8_t pattern(int iter, long i)
{
	return (uint8_t)((i * 7 + iter * 13 + (i >> 12)) & 0xff);
}

int main(int argc, char **argv)
{
	int iters = argc > 1 ? atoi(argv[1]) : 10;
	double *in, *out, t0, t;
	uint8_t *buf;
	long i;
	int it, r;

	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Comm_size(MPI_COMM_WORLD, &size);
	if (size < 2) {
		fprintf(stderr, "mpi_check: needs 2 ranks\n");
		MPI_Abort(MPI_COMM_WORLD, 2);
	}

	in = malloc(NRED * sizeof(*in));
	out = malloc(NRED * sizeof(*out));
	buf = malloc(PPLEN);
	if (!in || !out || !buf)
		MPI_Abort(MPI_COMM_WORLD, 3);

	for (i = 0; i < NRED; i++)
		in[i] = (double)(rank + 1) * (double)(i % 1000);
	MPI_Allreduce(in, out, NRED, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
	for (i = 0; i < NRED; i++) {
		double want = (double)size * (size + 1) / 2 * (double)(i % 1000);

		if (out[i] != want)
			die("allreduce", i, out[i], want);
	}

	MPI_Barrier(MPI_COMM_WORLD);
	t0 = MPI_Wtime();
	for (it = 0; it < iters && rank < 2; it++) {
		if (rank == 0) {
			for (i = 0; i < PPLEN; i++)
				buf[i] = pattern(it, i);
			MPI_Send(buf, PPLEN, MPI_BYTE, 1, it, MPI_COMM_WORLD);
			memset(buf, 0, PPLEN);
			MPI_Recv(buf, PPLEN, MPI_BYTE, 1, it, MPI_COMM_WORLD,
				 MPI_STATUS_IGNORE);
			for (i = 0; i < PPLEN; i++)
				if (buf[i] != (uint8_t)(pattern(it, i) + 1))
					die("pong", i, buf[i],
					    (uint8_t)(pattern(it, i) + 1));
		} else {
			MPI_Recv(buf, PPLEN, MPI_BYTE, 0, it, MPI_COMM_WORLD,
				 MPI_STATUS_IGNORE);
			for (i = 0; i < PPLEN; i++) {
				if (buf[i] != pattern(it, i))
					die("ping", i, buf[i], pattern(it, i));
				buf[i]++;
			}
			MPI_Send(buf, PPLEN, MPI_BYTE, 0, it, MPI_COMM_WORLD);
		}
	}
	t = MPI_Wtime() - t0;
	r = MPI_Barrier(MPI_COMM_WORLD);
	if (rank == 0)
		printf("mpi_check: ok: %d ranks, allreduce of %d doubles, %d x 4 MiB ping-pong, %.1f MB/s\n",
		       size, NRED, iters,
		       iters ? 2.0 * iters * PPLEN / t / 1e6 : 0.0);
	free(buf);
	free(out);
	free(in);
	MPI_Finalize();
	return r == MPI_SUCCESS ? 0 : 1;
}
