/* SPDX-License-Identifier: MIT */
/*
 * sipistorm - a vCPU that sends INIT and STARTUP IPIs to every other vCPU
 * of its guest, as fast as it can, for ever: the start signals a hostile
 * guest races against its own stop and restart (docs/vmx.md, "Secondary
 * vCPUs"). Each goes out through the x2APIC ICR, by /dev/cpu/CPU/msr.
 *
 * It prints "sipistorm: cpu C storms N vcpus" once, then "sipistorm: cpu
 * C sent S" every 2^14 signals.
 *
 * usage: sipistorm CPU (run pinned to CPU)
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* SDM Vol. 3A §11.12.1.2, Table 11-6; ICR fields §11.6.1; INIT-SIPI §8.4.4.1. */
#define X2APIC_ID	0x802
#define X2APIC_ICR	0x830
#define ICR_INIT	(5u << 8)
#define ICR_STARTUP	(6u << 8)
#define ICR_ASSERT	(1u << 14)
/* A start page in low RAM, which the hypervisor takes (docs/vmx.md). */
#define SIPI_VECTOR	0x10
#define MAX_CPUS	8
#define REPORT		(1u << 14)

static int apic_id_of(int cpu, uint64_t *id)
{
	char path[32];
	int fd, rc;

	snprintf(path, sizeof(path), "/dev/cpu/%d/msr", cpu);
	fd = open(path, O_RDONLY);
	if (fd < 0)
		return -1;
	rc = pread(fd, id, sizeof(*id), X2APIC_ID) == sizeof(*id) ? 0 : -1;
	close(fd);
	return rc;
}

int main(int argc, char **argv)
{
	uint64_t icr[2 * MAX_CPUS], id;
	unsigned int n = 0;
	unsigned long sent = 0;
	char path[32];
	int cpu, fd;

	setvbuf(stdout, NULL, _IOLBF, 0);
	if (argc != 2) {
		printf("usage: sipistorm CPU\n");
		return 2;
	}
	cpu = atoi(argv[1]);
	for (int other = 0; other < MAX_CPUS; other++) {
		if (other == cpu || apic_id_of(other, &id))
			continue;
		icr[n++] = id << 32 | ICR_ASSERT | ICR_INIT;
		icr[n++] = id << 32 | ICR_ASSERT | ICR_STARTUP | SIPI_VECTOR;
	}
	snprintf(path, sizeof(path), "/dev/cpu/%d/msr", cpu);
	fd = open(path, O_WRONLY);
	if (fd < 0 || !n) {
		printf("sipistorm: error: no x2APIC of CPU %d or no other CPU (%s)\n", cpu,
		       strerror(errno));
		return 1;
	}
	printf("sipistorm: cpu %d storms %u vcpus\n", cpu, n / 2);
	for (;;) {
		for (unsigned int i = 0; i < n; i++) {
			if (pwrite(fd, &icr[i], sizeof(icr[i]), X2APIC_ICR) != sizeof(icr[i])) {
				printf("sipistorm: cpu %d: signal refused after %lu (%s)\n", cpu,
				       sent, strerror(errno));
				return 1;
			}
			if (++sent % REPORT == 0)
				printf("sipistorm: cpu %d sent %lu\n", cpu, sent);
		}
	}
}
