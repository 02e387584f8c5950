/**
 * Checkpointing: the barrier protocol of a task ({@link io.weir.checkpoint.BarrierHandler}), the
 * {@link io.weir.checkpoint.CheckpointCoordinator} that triggers and completes checkpoints, and the
 * {@link io.weir.checkpoint.RestartStrategy} that paces failovers.
 *
 * <h2>Why every input counts exactly once</h2>
 *
 * <p><b>The cut.</b> The source loop puts barrier n into every channel right after the last record
 * it put there and records, per input partition, the next offset Sn. Records before the barrier
 * belong to epoch n (or earlier), records after it to later epochs. A channel is a FIFO, so the
 * cut is the same for the task as for the source loop.
 *
 * <p><b>Consistent state.</b> In align mode a task blocks each channel that delivered barrier n
 * until all did, then takes the synchronous part of its snapshot. So snapshot n reflects exactly
 * the records before Sn — no more, no less — on every input. The asynchronous part writes that
 * frozen version to the snapshot store; {@code SnapshotStore.write} returns only once the files
 * are durable. An incremental snapshot also names files an earlier completed checkpoint stored;
 * those stay as long as any retained checkpoint names them, and the latest completed checkpoint is
 * always retained.
 *
 * <p><b>Output belongs to its epoch.</b> Everything a task emits while in epoch n (results and
 * dead letters) goes to transaction Tn. At barrier n the task waits for all its Tn sends to be
 * acknowledged before it sends its first Tn+1 record, so no record of a key in Tn+1 can sit at a
 * lower offset than one in Tn.
 *
 * <p><b>One atomic step makes n durable.</b> When every task acknowledged n, every snapshot file
 * of n is durable and Sn is known, the committer appends one metadata record per task (id, Sn,
 * state handle) to {@code <app>-checkpoints}, sends Sn as the group's offsets (with the
 * consumer's group metadata and {@code ckpt=n} as offset metadata), and commits Tn. Output,
 * metadata and offsets become visible together or not at all. Tn commits only after Tn-1 did.
 *
 * <p><b>A crash between any two steps.</b> Before the commit of Tn: Tn (and later epochs) are
 * aborted — by the next owner of the transactional ids, whose initialisation aborts them, or by
 * the transaction timeout — so none of their output is ever read_committed; the restore uses
 * checkpoint n-1 or older, whose output, state and positions belong together; the snapshot files
 * of n are orphans (never referenced), deleted by the sweep when the task next starts. During the commit: the transaction
 * coordinator finishes it (or aborts it) before anyone can read the offsets — the restoring
 * instance asks for stable offsets and reads the checkpoint topic read_committed, so it sees
 * either all of n or nothing of it. After the commit: restore from n. In every case the restored
 * state is the state after exactly the records before Sk, and reading resumes at Sk: each input
 * record is reflected in committed output and state exactly once.
 *
 * <p><b>Zombies.</b> An instance that lost its partitions cannot commit for them: its offsets go
 * with a group generation that is no longer current, so the broker refuses the commit; and a
 * restarted instance with the same id fences its predecessor's producers by initialising them.
 *
 * <p><b>At-least-once.</b> The same checkpoints, but tasks only track barriers (no blocking), so a
 * snapshot may include records after the cut, and output goes out at once without transactions.
 * After a restore, records after Sk are processed again: duplicates, never loss.
 */
package io.weir.checkpoint;
