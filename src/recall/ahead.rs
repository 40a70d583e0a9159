//! Work done ahead, in order: items are worked on by several threads, at most a budget of
//! weight ahead of the one consumer, which takes the results in the items' order.
//!
//! A large refresh reads, parses and masks session files on these threads while the index
//! writer's own threads tokenize what the consumer hands them (docs/recall.md, "Reading ahead
//! of the writer").

use std::sync::{Condvar, Mutex, MutexGuard};

/// Calls `consume` with `work(item)` for every item, in order, and stops at the first error it
/// returns. Up to `threads` items are worked on at once, and an item is started only while the
/// weight of those started but not yet consumed stays within `budget` (or when none is), so
/// what is held ahead is bounded however large the items. A panic in `work` reaches the caller.
pub fn in_order<T, R, E>(
    items: &[T],
    threads: usize,
    budget: u64,
    weight: impl Fn(&T) -> u64 + Sync,
    work: impl Fn(&T) -> R + Sync,
    mut consume: impl FnMut(&T, R) -> Result<(), E>,
) -> Result<(), E>
where
    T: Sync,
    R: Send,
{
    if threads <= 1 || items.len() <= 1 {
        return items.iter().try_for_each(|item| consume(item, work(item)));
    }
    let shared = Shared {
        state: Mutex::new(State {
            next: 0,
            ahead: 0,
            done: (0..items.len()).map(|_| None).collect(),
            stopped: false,
        }),
        started: Condvar::new(),
        finished: Condvar::new(),
    };
    std::thread::scope(|scope| {
        let workers: Vec<_> = (0..threads.min(items.len()))
            .map(|_| scope.spawn(|| shared.run(items, budget, &weight, &work)))
            .collect();
        let result = {
            // A panic in `consume` must not leave the workers waiting for budget forever: the
            // scope joins them before the panic goes on.
            let _stops_on_panic = StopOnDrop(&shared);
            shared.consume(items, &weight, &mut consume)
        };
        shared.stop();
        for worker in workers {
            if let Err(panic) = worker.join() {
                std::panic::resume_unwind(panic);
            }
        }
        result
    })
}

struct Shared<R> {
    state: Mutex<State<R>>,
    /// Signalled when an item's result is consumed (budget freed) or the work stops.
    started: Condvar,
    /// Signalled when an item's result is ready or a worker has gone.
    finished: Condvar,
}

struct State<R> {
    /// The next item to start.
    next: usize,
    /// The weight of the items started and not yet consumed.
    ahead: u64,
    done: Vec<Option<R>>,
    /// The consumer has stopped (done, or failed), or a worker panicked.
    stopped: bool,
}

impl<R> Shared<R> {
    fn lock(&self) -> MutexGuard<'_, State<R>> {
        // A worker that panicked never holds the lock while panicking (see `run`).
        self.state
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
    }

    fn run<T>(
        &self,
        items: &[T],
        budget: u64,
        weight: &(impl Fn(&T) -> u64 + Sync),
        work: &(impl Fn(&T) -> R + Sync),
    ) {
        let _stops_on_panic = StopOnDrop(self);
        loop {
            let index = {
                let mut state = self.lock();
                loop {
                    if state.stopped || state.next == items.len() {
                        return;
                    }
                    let w = weight(&items[state.next]);
                    if state.ahead == 0 || state.ahead.saturating_add(w) <= budget {
                        state.ahead += w;
                        state.next += 1;
                        break state.next - 1;
                    }
                    state = self.started.wait(state).unwrap_or_else(|p| p.into_inner());
                }
            };
            let result = work(&items[index]);
            self.lock().done[index] = Some(result);
            self.finished.notify_all();
        }
    }

    fn consume<T, E>(
        &self,
        items: &[T],
        weight: &impl Fn(&T) -> u64,
        consume: &mut impl FnMut(&T, R) -> Result<(), E>,
    ) -> Result<(), E> {
        for (index, item) in items.iter().enumerate() {
            let result = {
                let mut state = self.lock();
                loop {
                    if let Some(result) = state.done[index].take() {
                        state.ahead -= weight(item);
                        break result;
                    }
                    if state.stopped {
                        // A worker panicked; the scope's join hands its panic on.
                        return Ok(());
                    }
                    state = self.finished.wait(state).unwrap_or_else(|p| p.into_inner());
                }
            };
            self.started.notify_all();
            consume(item, result)?;
        }
        Ok(())
    }

    fn stop(&self) {
        self.lock().stopped = true;
        self.started.notify_all();
        self.finished.notify_all();
    }
}

/// Stops the work when a worker or the consumer unwinds, so that no thread waits forever for
/// the other.
struct StopOnDrop<'a, R>(&'a Shared<R>);

impl<R> Drop for StopOnDrop<'_, R> {
    fn drop(&mut self) {
        if std::thread::panicking() {
            self.0.stop();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::atomic::{AtomicU64, Ordering};

    #[test]
    fn results_arrive_in_order_whatever_the_threads_and_budget() {
        let items: Vec<u64> = (0..200).map(|i| (i * 7919) % 13).collect();
        for threads in [1, 2, 3, 8] {
            for budget in [0, 1, 5, 40, u64::MAX] {
                let mut seen = Vec::new();
                let outcome: Result<(), ()> = in_order(
                    &items,
                    threads,
                    budget,
                    |&w| w,
                    |&w| w * 2,
                    |&item, result| {
                        seen.push((item, result));
                        Ok(())
                    },
                );
                assert_eq!(outcome, Ok(()));
                let expected: Vec<(u64, u64)> = items.iter().map(|&w| (w, w * 2)).collect();
                assert_eq!(seen, expected, "threads {threads}, budget {budget}");
            }
        }
    }

    #[test]
    fn the_weight_started_ahead_stays_within_the_budget() {
        let items: Vec<u64> = (0..300).map(|i| 1 + (i * 31) % 9).collect();
        let budget = 20;
        // The counter here is lowered just after the budget is freed, so a worker may start one
        // more item (of at most 9) in between.
        let slack = 9;
        let ahead = AtomicU64::new(0);
        let most = AtomicU64::new(0);
        let outcome: Result<(), ()> = in_order(
            &items,
            4,
            budget,
            |&w| w,
            |&w| {
                let now = ahead.fetch_add(w, Ordering::SeqCst) + w;
                most.fetch_max(now, Ordering::SeqCst);
                std::thread::yield_now();
            },
            |&w, ()| {
                ahead.fetch_sub(w, Ordering::SeqCst);
                // A slow consumer: without the budget the workers would run far ahead.
                std::thread::sleep(std::time::Duration::from_micros(50));
                Ok(())
            },
        );
        assert_eq!(outcome, Ok(()));
        let most = most.load(Ordering::SeqCst);
        assert!(most <= budget + slack, "{most} ahead, budget {budget}");
        assert!(most > 9, "the work never ran ahead ({most})");
    }

    #[test]
    fn an_item_heavier_than_the_budget_is_still_worked_on() {
        let items = [5, 100, 3, 250, 1];
        let mut seen = Vec::new();
        let outcome: Result<(), ()> = in_order(
            &items,
            2,
            10,
            |&w| w,
            |&w| w + 1,
            |_, r| {
                seen.push(r);
                Ok(())
            },
        );
        assert_eq!(outcome, Ok(()));
        assert_eq!(seen, [6, 101, 4, 251, 2]);
    }

    #[test]
    fn the_first_error_stops_the_work() {
        let items: Vec<u64> = (0..1000).collect();
        let worked = AtomicU64::new(0);
        let mut consumed = 0;
        let outcome = in_order(
            &items,
            2,
            4,
            |_| 1,
            |&i| {
                worked.fetch_add(1, Ordering::SeqCst);
                i
            },
            |_, i| {
                consumed += 1;
                if i == 10 {
                    Err(i)
                } else {
                    Ok(())
                }
            },
        );
        assert_eq!(outcome, Err(10));
        assert_eq!(consumed, 11);
        let worked = worked.load(Ordering::SeqCst);
        assert!(worked <= 11 + 4, "{worked} items worked on after the error");
    }

    #[test]
    fn a_panic_in_the_consumer_stops_the_workers_and_reaches_the_caller() {
        let items: Vec<u64> = (0..100).collect();
        let caught = std::panic::catch_unwind(|| {
            let _: Result<(), ()> = in_order(
                &items,
                3,
                2,
                |_| 1,
                |&i| i,
                |_, i| {
                    assert!(i != 5, "consumer at 5");
                    Ok(())
                },
            );
        });
        assert!(caught.is_err(), "the panic was lost");
    }

    #[test]
    fn a_panic_in_the_work_reaches_the_caller() {
        let items: Vec<u64> = (0..50).collect();
        let caught = std::panic::catch_unwind(|| {
            let _: Result<(), ()> = in_order(
                &items,
                2,
                u64::MAX,
                |_| 1,
                |&i| assert!(i != 17, "item 17"),
                |_, ()| Ok(()),
            );
        });
        let payload = caught.expect_err("the panic was lost");
        let message = payload
            .downcast_ref::<String>()
            .cloned()
            .or_else(|| payload.downcast_ref::<&str>().map(|s| s.to_string()));
        assert!(message.is_some_and(|m| m.contains("item 17")));
    }
}
