package io.weir.state;

/** A due timer: the key it belongs to, its time and its domain. */
public record Timer(byte[] key, long timestamp, TimerDomain domain) {}
