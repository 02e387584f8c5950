package io.weir.element;

/** One item of a channel: a record, a checkpoint barrier or a watermark. */
public sealed interface Element permits Record, Barrier, Watermark {}
