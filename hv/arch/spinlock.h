/* SPDX-License-Identifier: MIT */
/* spinlock.h - ticket lock: fair, so no CPU starves on the console. */
#ifndef SIDECORE_ARCH_SPINLOCK_H
#define SIDECORE_ARCH_SPINLOCK_H

#include <stdbool.h>
#include <stdint.h>

#include "arch/x86.h"

struct spinlock {
	volatile uint32_t next;
	volatile uint32_t owner;
};

static inline void spin_lock(struct spinlock *lock)
{
	uint32_t ticket = __atomic_fetch_add(&lock->next, 1, __ATOMIC_ACQUIRE);

	while (__atomic_load_n(&lock->owner, __ATOMIC_ACQUIRE) != ticket)
		cpu_relax();
}

/* Takes the lock only if it is free now: the next ticket is the owner's. */
static inline bool spin_trylock(struct spinlock *lock)
{
	uint32_t free = __atomic_load_n(&lock->owner, __ATOMIC_RELAXED);

	return __atomic_compare_exchange_n(&lock->next, &free, free + 1, false, __ATOMIC_ACQUIRE,
					   __ATOMIC_RELAXED);
}

static inline void spin_unlock(struct spinlock *lock)
{
	__atomic_store_n(&lock->owner, lock->owner + 1, __ATOMIC_RELEASE);
}

#endif
