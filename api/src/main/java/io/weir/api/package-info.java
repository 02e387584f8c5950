/**
 * The API of custom operators: implement {@link io.weir.api.Processor}, build a jar against the
 * {@code io.weir:weir-api} artifact with scope {@code provided} (the runtime has these classes; a
 * plugin jar must not bundle them), put it in the plugins directory ({@code processing.plugins},
 * {@code plugins} by default) and name the class in a step: {@code process: { class:
 * com.example.MyOperator, with: { ... } }}.
 *
 * <p>This package is all a custom operator sees of Weir; it depends on Jackson only.
 */
package io.weir.api;
