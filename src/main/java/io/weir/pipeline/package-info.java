/**
 * The plan of a job, built from its configuration before anything runs: the stages (a {@code key-by}
 * ends one and starts the next, across an internal repartition topic), the topics each stage reads
 * and writes, and the state each step keeps. {@code weir explain} prints it, {@code weir test} runs
 * it in-process, and the runtime instantiates it; all three take it from here, so they agree.
 */
package io.weir.pipeline;
