package io.weir.config;

import java.util.List;

/**
 * The last step of a pipeline, which writes the results: a {@link SinkStep} (one topic) or a
 * {@link RouteStep} (a topic chosen per record).
 */
public sealed interface TerminalStep extends Step permits SinkStep, RouteStep {

    /** Every sink this step may write to, in file order. */
    List<SinkStep> sinks();
}
