/**
 * The stream element: what flows through a channel. An element is a {@link io.weir.element.Record},
 * a {@link io.weir.element.Barrier} marking the cut of a checkpoint, or a
 * {@link io.weir.element.Watermark} carrying event-time progress. A channel delivers elements in
 * the order they were put in, so a barrier never overtakes the records before it.
 */
package io.weir.element;
