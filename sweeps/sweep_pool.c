/*
** sweep_pool.c — the sweep's worker threads (sweep_internal.h).
**
** The main thread publishes up to SWEEP_RING batches; `jobs` workers take
** items one at a time from the oldest published batch with items left, so
** a worker that finishes its last item of batch k goes straight on with
** batch k+1 (no barrier between batches).  The main thread waits for the
** oldest batch and writes it (sweep.c) while the workers evaluate the
** others.  Every thread polls the run's stop flag.
*/
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <time.h>

#include "sweep_internal.h"

static void evaluate_one(sweep_item *it, uint64_t seed, rip_search how)
{
    /* it->gen and it->L were drawn by sweep_order_by_cost */
    if (it->failed)
        return; /* its draw failed: reported by sweep_pool_wait_oldest */
    it->failed = rip_evaluate_search(&it->L, RIP_ENGINE_FAST, how, true, &it->ev, NULL, it->err);
    if (!it->failed && it->need_exec) {
        rip_pcg32 g;
        rip_exec_stream(&g, seed, (uint64_t)it->idx);
        it->failed = rip_exec_check_layer(&it->L, it->ev.truth, &g, it->xc, &it->checksum, it->err) != RIP_OK;
    }
}

/*
** A worker: evaluate items of the oldest published batch that has any
** left, until quit or a stop is asked for (the item in hand is finished;
** its batch is then dropped, so Ctrl-C does not wait for a whole batch).
*/
static void *worker(void *arg)
{
    sweep_pool *p = arg;
    pthread_mutex_lock(&p->mu);
    while (!p->quit && !atomic_load(p->stop)) {
        sweep_batch *b = NULL;
        for (int i = 0; i < p->n && b == NULL; i++)
            if (p->q[i]->next < p->q[i]->count)
                b = p->q[i];
        if (b == NULL) {
            pthread_cond_wait(&p->work, &p->mu);
            continue;
        }
        sweep_item *it = &b->items[b->order[b->next++]];
        pthread_mutex_unlock(&p->mu);
        evaluate_one(it, b->seed, b->how);
        pthread_mutex_lock(&p->mu);
        if (++b->finished == b->count)
            pthread_cond_signal(&p->done);
    }
    pthread_mutex_unlock(&p->mu);
    return NULL;
}

void sweep_pool_start(sweep_pool *p, int jobs, atomic_int *stop)
{
    p->stop = stop;
    pthread_mutex_init(&p->mu, NULL);
    pthread_cond_init(&p->work, NULL);
    pthread_cond_init(&p->done, NULL);
    for (int t = 0; jobs > 1 && t < jobs && t < 64; t++) {
        if (pthread_create(&p->tid[p->started], NULL, worker, p) != 0)
            break;
        p->started++;
    }
}

void sweep_pool_publish(sweep_pool *p, sweep_batch *b)
{
    pthread_mutex_lock(&p->mu);
    p->q[p->n++] = b;
    pthread_cond_broadcast(&p->work);
    pthread_mutex_unlock(&p->mu);
}

/*
** Polls the stop flag every 50 ms, since a signal handler cannot wake a
** condition variable.  Without workers the main thread evaluates.
*/
int sweep_pool_wait_oldest(sweep_pool *p, char err[RIP_ERR_LEN])
{
    sweep_batch *b = p->q[0];
    if (p->started == 0)
        while (b->next < b->count && !atomic_load(p->stop)) {
            evaluate_one(&b->items[b->order[b->next]], b->seed, b->how);
            b->next++;
            b->finished++;
        }
    pthread_mutex_lock(&p->mu);
    while (b->finished < b->count && !atomic_load(p->stop)) {
        struct timespec ts;
        clock_gettime(CLOCK_REALTIME, &ts);
        ts.tv_nsec += 50000000L;
        if (ts.tv_nsec >= 1000000000L) {
            ts.tv_sec++;
            ts.tv_nsec -= 1000000000L;
        }
        pthread_cond_timedwait(&p->done, &p->mu, &ts);
    }
    pthread_mutex_unlock(&p->mu);
    if (atomic_load(p->stop))
        return 1;
    for (int64_t k = 0; k < b->count; k++)
        if (b->items[k].failed) {
            snprintf(err, RIP_ERR_LEN, "layer %lld: %.200s", (long long)b->items[k].idx, b->items[k].err);
            return -1;
        }
    return 0;
}

void sweep_pool_pop(sweep_pool *p)
{
    pthread_mutex_lock(&p->mu);
    for (int i = 1; i < p->n; i++)
        p->q[i - 1] = p->q[i];
    p->n--;
    pthread_mutex_unlock(&p->mu);
}

void sweep_pool_close(sweep_pool *p)
{
    pthread_mutex_lock(&p->mu);
    p->quit = true;
    pthread_cond_broadcast(&p->work);
    pthread_mutex_unlock(&p->mu);
    for (int t = 0; t < p->started; t++)
        pthread_join(p->tid[t], NULL);
    p->started = 0;
    pthread_mutex_destroy(&p->mu);
    pthread_cond_destroy(&p->work);
    pthread_cond_destroy(&p->done);
}

/* Multiply-accumulates of executing L once (its cost with --execute); a
** double, since the product of all six is not bounded by rip_layer_derive. */
static double macs(const rip_layer *L)
{
    return (double)L->h_out * (double)L->w_out * (double)L->cout * (double)L->k_h * (double)L->k_w * (double)L->cin;
}

/*
** Longest first, so that a batch's largest execution does not start last
** while the other threads idle.  Rows are keyed by layer index, so the
** order changes nothing stored.  Insertion sort: a batch is at most 250
** items.
*/
void sweep_order_by_cost(sweep_batch *b)
{
    for (int64_t k = 0; k < b->count; k++) {
        sweep_item *it = &b->items[k];
        /* the category's place in the run's set is its generators.ord */
        size_t pos = 0;
        it->failed = rip_generator_set_draw(b->set, b->seed, it->idx, &it->L, &it->gen, &pos, it->err) != RIP_OK;
        it->gen_id = (int)pos;
        it->cost = it->failed ? 0 : it->need_exec ? macs(&it->L) : (double)(it->L.h_out * it->L.w_out);
        int64_t j = k;
        for (; j > 0 && b->items[b->order[j - 1]].cost < it->cost; j--)
            b->order[j] = b->order[j - 1];
        b->order[j] = k;
    }
}
