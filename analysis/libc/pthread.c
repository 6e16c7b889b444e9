// agx's model of the pthread API beyond its built-in mutexes and condition variables:
// semaphores, barriers, reader-writer locks and pthread_once, each written over a
// mutex and a condition variable the way a textbook implements it (waits in a loop, so
// spurious wake-ups are harmless). The state lives in the program's own sem_t,
// pthread_barrier_t or pthread_rwlock_t object (all larger than the state), so every
// object is its own primitive and needs no table. The model calls agx's primitives by
// their raw names (`__agx_mutex_lock_raw`, ...): in a program with recursive mutexes the
// program's `pthread_mutex_lock` is the kind-aware `__agx_mutex_lock` below.

struct __agx_sem {
    int value;
    char lock;
    char cond;
};

int sem_init(void *sem, int shared, unsigned int value)
{
    struct __agx_sem *s = sem;
    __agx_mutex_init_raw(&s->lock, 0);
    pthread_cond_init(&s->cond, 0);
    s->value = value;
    return 0;
}

int sem_destroy(void *sem)
{
    return 0;
}

int sem_wait(void *sem)
{
    struct __agx_sem *s = sem;
    __agx_mutex_lock_raw(&s->lock);
    while (s->value == 0)
        __agx_cond_wait_raw(&s->cond, &s->lock);
    s->value--;
    __agx_mutex_unlock_raw(&s->lock);
    return 0;
}

// -1 with errno EAGAIN when the count is 0.
int sem_trywait(void *sem)
{
    struct __agx_sem *s = sem;
    int taken = 0;
    __agx_mutex_lock_raw(&s->lock);
    if (s->value > 0) {
        s->value--;
        taken = 1;
    }
    __agx_mutex_unlock_raw(&s->lock);
    if (taken)
        return 0;
    __agx_errno = 11;
    return -1;
}

int sem_post(void *sem)
{
    struct __agx_sem *s = sem;
    __agx_mutex_lock_raw(&s->lock);
    s->value++;
    pthread_cond_signal(&s->cond);
    __agx_mutex_unlock_raw(&s->lock);
    return 0;
}

int sem_getvalue(void *sem, int *value)
{
    struct __agx_sem *s = sem;
    __agx_mutex_lock_raw(&s->lock);
    *value = s->value;
    __agx_mutex_unlock_raw(&s->lock);
    return 0;
}

struct __agx_barrier {
    int count;
    int waiting;
    int round;
    char lock;
    char cond;
};

int pthread_barrier_init(void *barrier, const void *attr, unsigned int count)
{
    struct __agx_barrier *b = barrier;
    if (count == 0)
        return 22;
    __agx_mutex_init_raw(&b->lock, 0);
    pthread_cond_init(&b->cond, 0);
    b->count = count;
    b->waiting = 0;
    b->round = 0;
    return 0;
}

int pthread_barrier_destroy(void *barrier)
{
    return 0;
}

// The last thread to arrive gets PTHREAD_BARRIER_SERIAL_THREAD (-1) and wakes the
// others, which return 0.
int pthread_barrier_wait(void *barrier)
{
    struct __agx_barrier *b = barrier;
    int result = 0;
    int round;
    __agx_mutex_lock_raw(&b->lock);
    round = b->round;
    b->waiting++;
    if (b->waiting == b->count) {
        b->waiting = 0;
        b->round = round + 1;
        pthread_cond_broadcast(&b->cond);
        result = -1;
    } else {
        while (b->round == round)
            __agx_cond_wait_raw(&b->cond, &b->lock);
    }
    __agx_mutex_unlock_raw(&b->lock);
    return result;
}

// Readers share, a writer excludes everyone; waiting writers do not block new readers
// (glibc's default, PTHREAD_RWLOCK_PREFER_READER_NP).
struct __agx_rwlock {
    int readers;
    int writer;
    char lock;
    char cond;
};

// A timed wait. The clock is not modelled: the deadline may pass at any moment before
// a signal reaches the waiter, so the wait either times out (the mutex released and
// taken again, other threads free to run in between; ETIMEDOUT, 110 on Linux) or waits
// as pthread_cond_wait does (a signal, a broadcast or, unless --no-spurious-wakeups, a
// spurious wake-up ends it with 0). Which one is an input. A waiter that times out is
// never in the condition's queue, so it consumes no signal.
int pthread_cond_timedwait(void *cond, void *mutex, const void *abstime)
{
    if (__VERIFIER_nondet_int()) {
        pthread_mutex_unlock(mutex);
        pthread_mutex_lock(mutex);
        return 110;
    }
    return pthread_cond_wait(cond, mutex);
}

int pthread_rwlock_init(void *rwlock, const void *attr)
{
    struct __agx_rwlock *r = rwlock;
    __agx_mutex_init_raw(&r->lock, 0);
    pthread_cond_init(&r->cond, 0);
    r->readers = 0;
    r->writer = 0;
    return 0;
}

int pthread_rwlock_destroy(void *rwlock)
{
    return 0;
}

int pthread_rwlock_rdlock(void *rwlock)
{
    struct __agx_rwlock *r = rwlock;
    __agx_mutex_lock_raw(&r->lock);
    while (r->writer)
        __agx_cond_wait_raw(&r->cond, &r->lock);
    r->readers++;
    __agx_mutex_unlock_raw(&r->lock);
    return 0;
}

int pthread_rwlock_wrlock(void *rwlock)
{
    struct __agx_rwlock *r = rwlock;
    __agx_mutex_lock_raw(&r->lock);
    while (r->writer || r->readers > 0)
        __agx_cond_wait_raw(&r->cond, &r->lock);
    r->writer = 1;
    __agx_mutex_unlock_raw(&r->lock);
    return 0;
}

// EBUSY (16) when the lock cannot be taken at once.
int pthread_rwlock_tryrdlock(void *rwlock)
{
    struct __agx_rwlock *r = rwlock;
    int result = 16;
    __agx_mutex_lock_raw(&r->lock);
    if (!r->writer) {
        r->readers++;
        result = 0;
    }
    __agx_mutex_unlock_raw(&r->lock);
    return result;
}

int pthread_rwlock_trywrlock(void *rwlock)
{
    struct __agx_rwlock *r = rwlock;
    int result = 16;
    __agx_mutex_lock_raw(&r->lock);
    if (!r->writer && r->readers == 0) {
        r->writer = 1;
        result = 0;
    }
    __agx_mutex_unlock_raw(&r->lock);
    return result;
}

int pthread_rwlock_unlock(void *rwlock)
{
    struct __agx_rwlock *r = rwlock;
    __agx_mutex_lock_raw(&r->lock);
    if (r->writer)
        r->writer = 0;
    else
        r->readers--;
    pthread_cond_broadcast(&r->cond);
    __agx_mutex_unlock_raw(&r->lock);
    return 0;
}

// One lock for every pthread_once_t: 0 not run, 1 running, 2 done; callers that come
// while the routine runs wait for it.
char __agx_once_lock;
char __agx_once_cond;

int pthread_once(int *once, void (*routine)(void))
{
    __agx_mutex_lock_raw(&__agx_once_lock);
    if (*once == 0) {
        *once = 1;
        __agx_mutex_unlock_raw(&__agx_once_lock);
        routine();
        __agx_mutex_lock_raw(&__agx_once_lock);
        *once = 2;
        pthread_cond_broadcast(&__agx_once_cond);
    } else {
        while (*once == 1)
            __agx_cond_wait_raw(&__agx_once_cond, &__agx_once_lock);
    }
    __agx_mutex_unlock_raw(&__agx_once_lock);
    return 0;
}

/* Thread ids are the integers pthread_create stores and pthread_self returns (the
   thread's creation index, 0 for main): equal ids are the same thread. */
int pthread_equal(unsigned long a, unsigned long b)
{
    return a == b;
}

/* Mutex types (linked only when the program may use types other than normal, see
   frontend::libc::MUTEX_KINDS; the lowering then sends the program's mutex calls here).
   The type lives in the program's own pthread_mutex_t, in glibc's field __data.__kind
   (where PTHREAD_RECURSIVE_MUTEX_INITIALIZER_NP puts it), numbered as glibc does: 0
   normal, 1 recursive, 2 error-checking, 3 adaptive (a normal mutex). A recursive
   mutex's depth is __data.__count, read and written only by its holder (so ordered by
   the lock itself). Whether the caller holds a mutex is __agx_mutex_held, which only the
   caller's own locks and unlocks change. The attribute's type is its int __align. */

int __agx_mutexattr_init(void *attr)
{
    ((pthread_mutexattr_t *)attr)->__align = 0;
    return 0;
}

// EINVAL (22) for a type glibc does not know.
int __agx_mutexattr_settype(void *attr, int kind)
{
    if (kind < 0 || kind > 3)
        return 22;
    ((pthread_mutexattr_t *)attr)->__align = kind;
    return 0;
}

int __agx_mutexattr_gettype(void *attr, void *kind)
{
    *(int *)kind = ((pthread_mutexattr_t *)attr)->__align;
    return 0;
}

int __agx_mutex_init(void *mutex, void *attr)
{
    pthread_mutex_t *m = mutex;
    __agx_mutex_init_raw(mutex, 0);
    m->__data.__kind = attr ? ((pthread_mutexattr_t *)attr)->__align : 0;
    m->__data.__count = 0;
    return 0;
}

// One more level of a recursive mutex its caller holds; EAGAIN (11) when the count
// would wrap.
int __agx_mutex_relock(pthread_mutex_t *m)
{
    unsigned int count = m->__data.__count;
    if (count + 1 == 0)
        return 11;
    m->__data.__count = count + 1;
    return 0;
}

// A relock by the holder: recursive counts it, error-checking returns EDEADLK (35); a
// normal one is lock misuse in the raw lock.
int __agx_mutex_lock(void *mutex)
{
    pthread_mutex_t *m = mutex;
    int kind = m->__data.__kind;
    if ((kind == 1 || kind == 2) && __agx_mutex_held(mutex)) {
        if (kind == 2)
            return 35;
        return __agx_mutex_relock(m);
    }
    __agx_mutex_lock_raw(mutex);
    if (kind == 1)
        m->__data.__count = 1;
    return 0;
}

// The holder of a recursive mutex takes it again; anyone else gets EBUSY if it is held.
int __agx_mutex_trylock(void *mutex)
{
    pthread_mutex_t *m = mutex;
    int kind = m->__data.__kind;
    int r;
    if (kind == 1 && __agx_mutex_held(mutex))
        return __agx_mutex_relock(m);
    r = __agx_mutex_trylock_raw(mutex);
    if (r == 0 && kind == 1)
        m->__data.__count = 1;
    return r;
}

// EPERM (1) when a recursive or error-checking mutex is not held by the caller; a
// recursive one is released when its count returns to 0.
int __agx_mutex_unlock(void *mutex)
{
    pthread_mutex_t *m = mutex;
    int kind = m->__data.__kind;
    if (kind == 1 || kind == 2) {
        if (!__agx_mutex_held(mutex))
            return 1;
        if (kind == 1) {
            unsigned int count = m->__data.__count - 1;
            m->__data.__count = count;
            if (count != 0)
                return 0;
        }
    }
    __agx_mutex_unlock_raw(mutex);
    return 0;
}

// The wait a thread does while holding a recursive mutex more than once (glibc's unlock
// then drops one level and keeps the mutex): on a mutex of its own.
__thread char __agx_wait_lock;

// EPERM when a recursive or error-checking mutex is not held; the recursion depth is
// the waiter's again when it returns (another holder may have changed the count).
int __agx_cond_wait(void *cond, void *mutex)
{
    pthread_mutex_t *m = mutex;
    int kind = m->__data.__kind;
    unsigned int count;
    if (kind != 1 && kind != 2)
        return __agx_cond_wait_raw(cond, mutex);
    if (!__agx_mutex_held(mutex))
        return 1;
    count = m->__data.__count;
    if (kind == 1 && count > 1) {
        m->__data.__count = count - 1;
        __agx_mutex_lock_raw(&__agx_wait_lock);
        __agx_cond_wait_raw(cond, &__agx_wait_lock);
        __agx_mutex_unlock_raw(&__agx_wait_lock);
        m->__data.__count = count;
        return 0;
    }
    __agx_cond_wait_raw(cond, mutex);
    m->__data.__count = count;
    return 0;
}
