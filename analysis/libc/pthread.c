// agx's model of the pthread API beyond its built-in mutexes and condition variables:
// semaphores, barriers, reader-writer locks and pthread_once, each written over a
// mutex and a condition variable the way a textbook implements it (waits in a loop, so
// spurious wake-ups are harmless). The state lives in the program's own sem_t,
// pthread_barrier_t or pthread_rwlock_t object (all larger than the state), so every
// object is its own primitive and needs no table.

struct __agx_sem {
    int value;
    char lock;
    char cond;
};

int sem_init(void *sem, int shared, unsigned int value)
{
    struct __agx_sem *s = sem;
    pthread_mutex_init(&s->lock, 0);
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
    pthread_mutex_lock(&s->lock);
    while (s->value == 0)
        pthread_cond_wait(&s->cond, &s->lock);
    s->value--;
    pthread_mutex_unlock(&s->lock);
    return 0;
}

// -1 with errno EAGAIN when the count is 0.
int sem_trywait(void *sem)
{
    struct __agx_sem *s = sem;
    int taken = 0;
    pthread_mutex_lock(&s->lock);
    if (s->value > 0) {
        s->value--;
        taken = 1;
    }
    pthread_mutex_unlock(&s->lock);
    if (taken)
        return 0;
    __agx_errno = 11;
    return -1;
}

int sem_post(void *sem)
{
    struct __agx_sem *s = sem;
    pthread_mutex_lock(&s->lock);
    s->value++;
    pthread_cond_signal(&s->cond);
    pthread_mutex_unlock(&s->lock);
    return 0;
}

int sem_getvalue(void *sem, int *value)
{
    struct __agx_sem *s = sem;
    pthread_mutex_lock(&s->lock);
    *value = s->value;
    pthread_mutex_unlock(&s->lock);
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
    pthread_mutex_init(&b->lock, 0);
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
    pthread_mutex_lock(&b->lock);
    round = b->round;
    b->waiting++;
    if (b->waiting == b->count) {
        b->waiting = 0;
        b->round = round + 1;
        pthread_cond_broadcast(&b->cond);
        result = -1;
    } else {
        while (b->round == round)
            pthread_cond_wait(&b->cond, &b->lock);
    }
    pthread_mutex_unlock(&b->lock);
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

int pthread_rwlock_init(void *rwlock, const void *attr)
{
    struct __agx_rwlock *r = rwlock;
    pthread_mutex_init(&r->lock, 0);
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
    pthread_mutex_lock(&r->lock);
    while (r->writer)
        pthread_cond_wait(&r->cond, &r->lock);
    r->readers++;
    pthread_mutex_unlock(&r->lock);
    return 0;
}

int pthread_rwlock_wrlock(void *rwlock)
{
    struct __agx_rwlock *r = rwlock;
    pthread_mutex_lock(&r->lock);
    while (r->writer || r->readers > 0)
        pthread_cond_wait(&r->cond, &r->lock);
    r->writer = 1;
    pthread_mutex_unlock(&r->lock);
    return 0;
}

// EBUSY (16) when the lock cannot be taken at once.
int pthread_rwlock_tryrdlock(void *rwlock)
{
    struct __agx_rwlock *r = rwlock;
    int result = 16;
    pthread_mutex_lock(&r->lock);
    if (!r->writer) {
        r->readers++;
        result = 0;
    }
    pthread_mutex_unlock(&r->lock);
    return result;
}

int pthread_rwlock_trywrlock(void *rwlock)
{
    struct __agx_rwlock *r = rwlock;
    int result = 16;
    pthread_mutex_lock(&r->lock);
    if (!r->writer && r->readers == 0) {
        r->writer = 1;
        result = 0;
    }
    pthread_mutex_unlock(&r->lock);
    return result;
}

int pthread_rwlock_unlock(void *rwlock)
{
    struct __agx_rwlock *r = rwlock;
    pthread_mutex_lock(&r->lock);
    if (r->writer)
        r->writer = 0;
    else
        r->readers--;
    pthread_cond_broadcast(&r->cond);
    pthread_mutex_unlock(&r->lock);
    return 0;
}

// One lock for every pthread_once_t: 0 not run, 1 running, 2 done; callers that come
// while the routine runs wait for it.
char __agx_once_lock;
char __agx_once_cond;

int pthread_once(int *once, void (*routine)(void))
{
    pthread_mutex_lock(&__agx_once_lock);
    if (*once == 0) {
        *once = 1;
        pthread_mutex_unlock(&__agx_once_lock);
        routine();
        pthread_mutex_lock(&__agx_once_lock);
        *once = 2;
        pthread_cond_broadcast(&__agx_once_cond);
    } else {
        while (*once == 1)
            pthread_cond_wait(&__agx_once_cond, &__agx_once_lock);
    }
    pthread_mutex_unlock(&__agx_once_lock);
    return 0;
}

/* Thread ids are the integers pthread_create stores and pthread_self returns (the
   thread's creation index, 0 for main): equal ids are the same thread. */
int pthread_equal(unsigned long a, unsigned long b)
{
    return a == b;
}
