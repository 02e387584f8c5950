package io.weir.checkpoint;

import io.weir.state.SnapshotStore;
import io.weir.state.StoredFile;
import java.io.IOException;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Predicate;

/** The snapshot store as one asynchronous part sees it: counts the bytes that part writes. */
final class MeteredUpload implements SnapshotStore {
    private final SnapshotStore inner;
    private final AtomicLong written = new AtomicLong();

    MeteredUpload(SnapshotStore inner) {
        this.inner = inner;
    }

    long written() {
        return written.get();
    }

    @Override
    public StoredFile write(String name, byte[] content) throws IOException {
        return counted(inner.write(name, content));
    }

    @Override
    public StoredFile write(String name, Path file) throws IOException {
        return counted(inner.write(name, file));
    }

    private StoredFile counted(StoredFile f) {
        written.addAndGet(f.size());
        return f;
    }

    @Override
    public byte[] read(StoredFile file) throws IOException {
        return inner.read(file);
    }

    @Override
    public void download(StoredFile file, Path target) throws IOException {
        inner.download(file, target);
    }

    @Override
    public void downloadAll(Map<StoredFile, Path> files) throws IOException {
        inner.downloadAll(files);
    }

    @Override
    public void delete(StoredFile file) throws IOException {
        inner.delete(file);
    }

    @Override
    public List<StoredFile> list(Predicate<String> names) throws IOException {
        return inner.list(names);
    }

    /** The store belongs to the instance; one upload never closes it. */
    @Override
    public void close() {}
}
