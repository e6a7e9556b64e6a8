/* SPDX-License-Identifier: MIT */
/*
 * apicabuse - a guest that misuses the local APIC it owns, run as root.
 *
 * Through /dev/cpu/0/msr (the msr module) it writes the x2APIC registers a
 * direct vCPU's exits judge (docs/vmx.md, "Direct interrupts"): IPIs at
 * every other APIC ID (INIT, NMI, fixed, logical, broadcast), LINT0 as an
 * NMI source, IA32_APIC_BASE out of x2APIC mode. In the first round it
 * prints one line per attempt,
 *
 *   apicabuse: CASE -> ok|refused (errno text)
 *
 * and a total at the end. "spin" raises its own APIC's task priority to
 * 0xff, which holds back every interrupt, the timer's included, and spins
 * forever, silently: what it printed before must have left the UART first
 * (guest/scripts/apicabuse.sh). (CLI would do no more: Linux treats it as
 * a no-op in user mode.) None of it may reach another guest or the
 * hypervisor's cores.
 *
 * "storm CPU TARGET" (run pinned to CPU) sends the IPIs a guest may send,
 * as fast as it can and for good: fixed IPIs on Linux's reschedule vector
 * from CPU's APIC to TARGET's, each write to the ICR an exit the
 * hypervisor judges and carries out (docs/vmx.md, "Direct interrupts").
 * It prints "apicabuse: storm from apic A to apic B" once, then "apicabuse:
 * storm N IPIs" every 2^14 of them. CPU and TARGET are the guest's own
 * CPU numbers.
 *
 * "sweep spin|reboot" holds back every interrupt as "spin" does (the
 * nearest a user can come to CLI), then raises every vector 0-31, the
 * host's exception vectors, through each path a guest has: a fixed IPI to
 * itself (by shorthand and by ID) and to every other APIC ID (its
 * siblings, started or not, and IDs outside the guest), SELF_IPI, and the
 * LVT timer in one-shot mode with a count of 1. The hypervisor must refuse
 * every one (docs/vmx.md, "Direct interrupts"); one it let through would
 * wait in the APIC, since the task priority holds it back, until the
 * guest's end took it into the host's IDT. Then it spins, or reboots at
 * once through the magic SysRq key: with reboot=t a triple fault. It
 * prints one line before the sweep; what it prints after may never leave
 * the guest.
 *
 * usage: apicabuse rounds N | apicabuse spin | apicabuse storm CPU TARGET |
 *        apicabuse sweep spin|reboot
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdbool.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* SDM Vol. 3A §11.12.1.2, Table 11-6; ICR fields §11.6.1, §11.12.9. */
#define MSR_APIC_BASE	0x1b
#define APIC_BASE_EXTD	(1ull << 10)
#define X2APIC_ID	0x802
#define X2APIC_TPR	0x808
#define X2APIC_ICR	0x830
#define X2APIC_LINT0	0x835
#define X2APIC_LVT_TIMER 0x832
#define X2APIC_TIMER_ICR 0x838
#define X2APIC_SELF_IPI	0x83f
#define ICR_SELF	(1u << 18)
#define ICR_INIT	(5u << 8)
#define ICR_NMI		(4u << 8)
#define ICR_LOGICAL	(1u << 11)
#define ICR_ASSERT	(1u << 14)
#define ICR_ALL_BUT_SELF (3u << 18)
#define LVT_NMI		(4u << 8)
#define IDS		8	/* every APIC ID of the emulated machines, and more */
#define ROUND_US	200000	/* between rounds */
#define VECTOR_RESCHEDULE 0xfd	/* Linux's: taking one costs a guest little */
#define STORM_REPORT	(1u << 14)
#define SWEEP_VECTORS	32	/* 0-31: the architecture's exception vectors */

static int fd;

static int msr_read(uint32_t msr, uint64_t *value)
{
	return pread(fd, value, sizeof(*value), msr) == sizeof(*value) ? 0 : -1;
}

static bool verbose = true;	/* every attempt on its own line: the first round only */
static unsigned int tried, refused;

static void attempt(const char *what, uint32_t msr, uint64_t value)
{
	bool ok;

	errno = 0;
	ok = pwrite(fd, &value, sizeof(value), msr) == sizeof(value);
	tried++;
	refused += !ok;
	if (!verbose)
		return;
	if (ok)
		printf("apicabuse: %s -> ok\n", what);
	else
		printf("apicabuse: %s -> refused (%s)\n", what, strerror(errno));
}

static void round_of_ipis(uint32_t self)
{
	char what[64];

	for (uint32_t id = 0; id < IDS; id++) {
		if (id == self)
			continue;
		snprintf(what, sizeof(what), "INIT to apic %u", id);
		attempt(what, X2APIC_ICR, (uint64_t)id << 32 | ICR_INIT | ICR_ASSERT);
		snprintf(what, sizeof(what), "NMI to apic %u", id);
		attempt(what, X2APIC_ICR, (uint64_t)id << 32 | ICR_NMI | ICR_ASSERT);
		snprintf(what, sizeof(what), "vector 0xec to apic %u", id);
		attempt(what, X2APIC_ICR, (uint64_t)id << 32 | ICR_ASSERT | 0xec);
	}
	attempt("logical vector 0xec to 0xff", X2APIC_ICR, 0xffull << 32 | ICR_LOGICAL | 0xec);
	attempt("vector 0xec to all but self", X2APIC_ICR, ICR_ALL_BUT_SELF | ICR_ASSERT | 0xec);
}

static int spin(void)
{
	attempt("mask every interrupt (TPR 0xff)", X2APIC_TPR, 0xff);
	fflush(stdout);
	for (;;)
		__asm__ volatile("pause");
	return 0;
}

/* Its own ID is among the IDS: a self IPI by shorthand and by ID. */
static void sweep_vector(uint64_t vector)
{
	attempt("self IPI", X2APIC_ICR, ICR_SELF | ICR_ASSERT | vector);
	for (uint32_t id = 0; id < IDS; id++)
		attempt("IPI", X2APIC_ICR, (uint64_t)id << 32 | ICR_ASSERT | vector);
	attempt("SELF_IPI", X2APIC_SELF_IPI, vector);
	attempt("LVT timer", X2APIC_LVT_TIMER, vector);
	attempt("timer count", X2APIC_TIMER_ICR, 1);
}

static int sweep(bool reboot)
{
	int trigger;

	printf("apicabuse: sweeping vectors 0-31 through ICR, SELF_IPI and the LVT timer (%s)\n",
	       reboot ? "then reboot" : "then spin");
	fflush(stdout);
	verbose = false;
	trigger = reboot ? open("/proc/sysrq-trigger", O_WRONLY) : -1;
	attempt("mask every interrupt (TPR 0xff)", X2APIC_TPR, 0xff);
	for (uint64_t vector = 0; vector < SWEEP_VECTORS; vector++)
		sweep_vector(vector);
	printf("apicabuse: sweep: %u writes, %u refused\n", tried, refused);
	fflush(stdout);
	if (trigger >= 0 && write(trigger, "b", 1) != 1)
		printf("apicabuse: sweep: no reboot (%s)\n", strerror(errno));
	for (;;)
		__asm__ volatile("pause");
	return 0;
}

/* The APIC ID of the guest's CPU cpu, read on that CPU. */
static int apic_id_of(int cpu, uint64_t *id)
{
	char path[32];
	int cpu_fd, rc;

	snprintf(path, sizeof(path), "/dev/cpu/%d/msr", cpu);
	cpu_fd = open(path, O_RDONLY);
	if (cpu_fd < 0)
		return -1;
	rc = pread(cpu_fd, id, sizeof(*id), X2APIC_ID) == sizeof(*id) ? 0 : -1;
	close(cpu_fd);
	return rc;
}

static int storm(int cpu, int target)
{
	char path[32];
	uint64_t from, to, icr;
	unsigned long sent = 0;

	snprintf(path, sizeof(path), "/dev/cpu/%d/msr", cpu);
	fd = open(path, O_WRONLY);
	if (fd < 0 || apic_id_of(cpu, &from) || apic_id_of(target, &to)) {
		printf("apicabuse: error: no x2APIC of CPU %d or %d (%s)\n", cpu, target,
		       strerror(errno));
		return 1;
	}
	printf("apicabuse: storm from apic %u to apic %u\n", (unsigned int)from, (unsigned int)to);
	icr = to << 32 | ICR_ASSERT | VECTOR_RESCHEDULE;
	for (;;) {
		if (pwrite(fd, &icr, sizeof(icr), X2APIC_ICR) != sizeof(icr)) {
			printf("apicabuse: storm: IPI refused after %lu (%s)\n", sent, strerror(errno));
			return 1;
		}
		if (++sent % STORM_REPORT == 0)
			printf("apicabuse: storm %lu IPIs\n", sent);
	}
}

int main(int argc, char **argv)
{
	uint64_t self, base, lint0;
	int rounds;

	setvbuf(stdout, NULL, _IOLBF, 0);
	if (argc == 4 && !strcmp(argv[1], "storm"))
		return storm(atoi(argv[2]), atoi(argv[3]));
	fd = open("/dev/cpu/0/msr", O_RDWR);
	if (fd < 0 || msr_read(X2APIC_ID, &self) || msr_read(MSR_APIC_BASE, &base)) {
		printf("apicabuse: error: no x2APIC through /dev/cpu/0/msr (%s)\n", strerror(errno));
		return 1;
	}
	if (argc == 2 && !strcmp(argv[1], "spin"))
		return spin();
	if (argc == 3 && !strcmp(argv[1], "sweep") &&
	    (!strcmp(argv[2], "spin") || !strcmp(argv[2], "reboot")))
		return sweep(!strcmp(argv[2], "reboot"));
	if (argc != 3 || strcmp(argv[1], "rounds") || (rounds = atoi(argv[2])) <= 0) {
		printf("usage: apicabuse rounds N | apicabuse spin | apicabuse storm CPU TARGET | "
		       "apicabuse sweep spin|reboot\n");
		return 2;
	}
	printf("apicabuse: apic %u, base %#llx\n", (unsigned int)self, (unsigned long long)base);
	for (int r = 1; r <= rounds; r++) {
		round_of_ipis((uint32_t)self);
		attempt("LINT0 as an NMI source", X2APIC_LINT0, LVT_NMI);
		attempt("leave x2APIC mode", MSR_APIC_BASE, base & ~APIC_BASE_EXTD);
		verbose = false;
		usleep(ROUND_US);
	}
	printf("apicabuse: %d rounds, %u writes, %u refused\n", rounds, tried, refused);
	if (!msr_read(X2APIC_LINT0, &lint0))
		printf("apicabuse: LINT0 reads %#llx\n", (unsigned long long)lint0);
	return 0;
}
