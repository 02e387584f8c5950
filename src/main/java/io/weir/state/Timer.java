package io.weir.state;

/** A due timer: its owner (an operator of the chain), the key, its time and its domain. */
public record Timer(String owner, byte[] key, long timestamp, TimerDomain domain) {}
