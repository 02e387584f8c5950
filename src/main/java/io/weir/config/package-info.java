/**
 * The configuration of a Weir job: immutable records built once at start from a YAML file, and
 * the loading that gets there.
 *
 * <p>{@link io.weir.config.ConfigLoader} reads the file with SnakeYAML's node API, so that every
 * value keeps its line and column, applies {@code --set} overrides on dotted paths, substitutes
 * {@code ${NAME:default}} variables from the environment, and binds the tree to
 * {@link io.weir.config.WeirConfig} and the records it holds: Kafka connection settings,
 * processing settings (guarantee, threads, checkpoints, restarts, state), the dead-letter topic,
 * the HTTP port, and the {@link io.weir.config.Pipeline} of {@link io.weir.config.Step}s, whose
 * CEL expressions ({@link io.weir.expr.Expression}) are compiled while loading (the language is
 * described in {@code docs/pipeline-language.md}). Loading
 * does not stop at the first problem: unknown keys (with a "did you mean" hint), values of the
 * wrong kind or out of range, a pipeline of the wrong shape, CEL errors, Kafka client properties
 * the clients would refuse and YAML syntax errors are all
 * collected, each with its position and the value seen, into one
 * {@link io.weir.config.ConfigException} meant to be printed to the user as it is.
 *
 * <p>The records check their own invariants when constructed, so a configuration built in code
 * is as valid as a loaded one; the loader checks the same rules first to report them with
 * positions. The keys the loader knows are listed in one place, which the JSON schema in
 * {@code config/weir.schema.json} is tested against. The parsed tree, the binders and the value
 * formats are internal to the package.
 */
package io.weir.config;
