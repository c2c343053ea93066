// SPDX-License-Identifier: GPL-2.0
/*
 * The smallest verbs program worth running: open the first RDMA device,
 * allocate a protection domain and a completion queue, say what was found.
 * Documentation/vroce-vm.md builds it on the host and runs it in a VM.
 */
#include <stdio.h>
#include <infiniband/verbs.h>

int main(void)
{
	struct ibv_device **list;
	struct ibv_context *ctx;
	struct ibv_pd *pd;
	struct ibv_cq *cq;
	int n;

	list = ibv_get_device_list(&n);
	if (!list || n < 1) {
		fprintf(stderr, "no RDMA device\n");
		return 1;
	}
	ctx = ibv_open_device(list[0]);
	if (!ctx) {
		perror("ibv_open_device");
		return 1;
	}
	pd = ibv_alloc_pd(ctx);
	cq = ibv_create_cq(ctx, 16, NULL, NULL, 0);
	if (!pd || !cq) {
		perror("ibv_alloc_pd / ibv_create_cq");
		return 1;
	}
	printf("%s: protection domain and completion queue ready\n",
	       ibv_get_device_name(list[0]));
	ibv_destroy_cq(cq);
	ibv_dealloc_pd(pd);
	ibv_close_device(ctx);
	ibv_free_device_list(list);
	return 0;
}
