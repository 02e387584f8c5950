package io.weir.app;

import java.util.BitSet;

/**
 * Which transactional-id slots the running executions of an instance hold. Executions run side by
 * side (one per group of partitions assigned together), so each takes its own block of
 * {@code blockSize} consecutive slots: block b holds slots {@code b × blockSize} to
 * {@code (b + 1) × blockSize − 1}. The lowest free block is taken, so an instance running one
 * execution always uses slots 0 to blockSize − 1, and an execution started again after a failover
 * reuses — and, by initialising its producers, aborts — what the stopped one left.
 */
final class ProducerSlots {
    private final int blockSize;
    private final BitSet used = new BitSet();

    ProducerSlots(int blockSize) {
        this.blockSize = blockSize;
    }

    /** Takes the lowest free block; returns its first slot. */
    synchronized int acquire() {
        int block = used.nextClearBit(0);
        used.set(block);
        return block * blockSize;
    }

    /** Gives back the block that starts at {@code firstSlot}. */
    synchronized void release(int firstSlot) {
        used.clear(firstSlot / blockSize);
    }
}
