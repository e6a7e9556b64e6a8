/* SPDX-License-Identifier: MIT */
/*
 * test_vsock_domain.c - unit tests for hv/virtio/vsock_domain.c: a
 * sidecore's lock as its vsock devices' domain, its rank and its meter.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "virtio/vsock_domain.h"

static struct net_switch sw;
static struct sidecore sc;
static struct vsock_domain d;

/* Sidecore index of a switch of its own, and its lock as a domain. */
static struct virtio_vsock_domain *domain_of(unsigned int index)
{
	memset(&sc, 0, sizeof(sc));
	net_switch_init(&sw);
	sc.index = index;
	sc.sw = &sw;
	return vsock_domain_init(&d, &sc);
}

static void test_domain_is_the_sidecore(void **state)
{
	struct virtio_vsock_domain *domain = domain_of(1);

	(void)state;
	assert_ptr_equal(domain, &d.domain);
	assert_int_equal(domain->rank, 1);
	assert_ptr_equal(domain->meter, net_switch_meter(&sw, 1));
}

/* What the domain takes is the sidecore's own lock, and nothing else. */
static void test_domain_takes_the_sidecore_lock(void **state)
{
	struct virtio_vsock_domain *domain = domain_of(0);

	(void)state;
	domain->lock(domain);
	assert_false(spin_trylock(&sc.lock));
	assert_false(domain->trylock(domain));
	domain->unlock(domain);
	assert_true(domain->trylock(domain));
	assert_false(spin_trylock(&sc.lock));
	domain->unlock(domain);
	assert_true(spin_trylock(&sc.lock));
	assert_false(domain->trylock(domain));
	spin_unlock(&sc.lock);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_domain_is_the_sidecore),
		cmocka_unit_test(test_domain_takes_the_sidecore_lock),
	};

	return cmocka_run_group_tests_name("vsock domain", tests, NULL, NULL);
}
