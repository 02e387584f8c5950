/**
 * Keyed state: the typed API operators use ({@link io.weir.state.ValueState},
 * {@link io.weir.state.MapState}, {@link io.weir.state.ListState}, {@link io.weir.state.Timers}),
 * the byte-level {@link io.weir.state.StateStore} of one task that backs it, the
 * {@link io.weir.state.StateBackend}s that create and restore stores (RocksDB with incremental
 * snapshots, or the heap), and the {@link io.weir.state.SnapshotStore}s where the asynchronous parts
 * of snapshots go.
 *
 * <p>A snapshot has two parts. The synchronous part runs on the task thread between two records
 * and only captures (copy-on-write); the asynchronous part serialises and uploads the captured
 * version on an uploader thread while the task goes on. Its result is a
 * {@link io.weir.state.StateHandle}: the list of stored files the checkpoint needs — for RocksDB,
 * the files new since the task's latest completed checkpoint plus those it shares with it.
 */
package io.weir.state;
