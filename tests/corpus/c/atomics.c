/* C11 atomics and GNU __atomic builtins: atomicrmw, cmpxchg, fence. */
#include <stdatomic.h>
#include <stdbool.h>

_Atomic long hits;
_Atomic double atomic_total;
int plain_counter;

long record_hit(void) { return atomic_fetch_add(&hits, 1) + 1; }

long record_hits_relaxed(long k) {
    return atomic_fetch_add_explicit(&hits, k, memory_order_relaxed);
}

int bump_plain(int by) { return __atomic_fetch_add(&plain_counter, by, __ATOMIC_SEQ_CST); }

int fetch_max(int *p, int v) {
    int cur = __atomic_load_n(p, __ATOMIC_RELAXED);
    while (cur < v && !__atomic_compare_exchange_n(p, &cur, v, true, __ATOMIC_ACQ_REL,
                                                   __ATOMIC_RELAXED)) {
    }
    return cur;
}

void atomic_add_double(_Atomic double *p, double v) {
    double old = atomic_load(p);
    while (!atomic_compare_exchange_weak(p, &old, old + v)) {
    }
}

double accumulate(const double *x, int n) {
    for (int i = 0; i < n; ++i)
        atomic_add_double(&atomic_total, x[i]);
    return atomic_load_explicit(&atomic_total, memory_order_acquire);
}

bool try_lock(_Atomic int *lock) {
    int expected = 0;
    return atomic_compare_exchange_strong_explicit(lock, &expected, 1, memory_order_acquire,
                                                   memory_order_relaxed);
}

void unlock(_Atomic int *lock) { atomic_store_explicit(lock, 0, memory_order_release); }

void publish(double *slot, double v, _Atomic int *ready) {
    *slot = v;
    atomic_thread_fence(memory_order_release);
    atomic_store_explicit(ready, 1, memory_order_relaxed);
}

unsigned swap_flags(unsigned *p, unsigned v) { return __atomic_exchange_n(p, v, __ATOMIC_ACQ_REL); }

unsigned set_bits(_Atomic unsigned *p, unsigned mask) { return atomic_fetch_or(p, mask); }

unsigned clear_bits(_Atomic unsigned *p, unsigned mask) { return atomic_fetch_and(p, ~mask); }

long sub_and_fetch(long *p) { return __atomic_sub_fetch(p, 1, __ATOMIC_SEQ_CST); }

bool test_and_set(volatile bool *flag) { return __atomic_test_and_set(flag, __ATOMIC_SEQ_CST); }
