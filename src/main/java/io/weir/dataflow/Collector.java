package io.weir.dataflow;

/** Where an operator emits its results: the next operator of the chain, or the sink. */
@FunctionalInterface
public interface Collector {
    void emit(Event event);
}
