package io.weir.state;

import java.util.List;

/** What one task's checkpoint needs to restore its state: the backend and its files. */
public record StateHandle(String backend, List<StoredFile> files) {
    public static final StateHandle EMPTY = new StateHandle("none", List.of());

    public StateHandle {
        files = List.copyOf(files);
    }
}
