package io.weir.state;

import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * The immutable files (SSTs) of one task's latest completed checkpoint, by local file name: what
 * the next checkpoint may reference instead of uploading again. Only completed checkpoints count —
 * a file an aborted checkpoint uploaded may already be gone — and the latest one is enough, since an
 * SST that left the database never comes back. Retention keeps the latest completed checkpoint, so
 * a file offered here still exists in the snapshot store. After a restore it starts as the restored
 * checkpoint's files, which are exactly the database's files.
 *
 * <p>Threading: replaced by the coordinator's thread on completion, read by uploader threads; an
 * immutable map behind a volatile field.
 */
final class SharedFiles {
    private volatile Map<String, StoredFile> byLocalName;

    SharedFiles(List<StoredFile> restored) {
        byLocalName = index(restored);
    }

    void completed(StateHandle handle) {
        byLocalName = index(handle.files());
    }

    /** The stored copy of a local immutable file, or null; a size mismatch means another file. */
    StoredFile reusable(String localName, long size) {
        StoredFile f = byLocalName.get(localName);
        return f != null && f.size() == size ? f : null;
    }

    int size() {
        return byLocalName.size();
    }

    /** The name of a stored file inside the database directory: its last path element. */
    static String localName(StoredFile f) {
        return f.name().substring(f.name().lastIndexOf('/') + 1);
    }

    /** RocksDB never changes an SST (or blob) file once written; everything else may change. */
    static boolean immutable(String localName) {
        return localName.endsWith(".sst") || localName.endsWith(".blob");
    }

    private static Map<String, StoredFile> index(List<StoredFile> files) {
        Map<String, StoredFile> m = new HashMap<>();
        for (StoredFile f : files) {
            if (immutable(localName(f))) {
                m.put(localName(f), f);
            }
        }
        return Map.copyOf(m);
    }
}
