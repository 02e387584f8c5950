package io.weir.state;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;

/** The snapshot store contract on the filesystem store. */
class FileSnapshotStoreTest extends SnapshotStoreContract {
    private FileSnapshotStore store;

    @Override
    protected SnapshotStore store() {
        if (store == null) {
            try {
                store = new FileSnapshotStore(dir.resolve("store"));
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        }
        return store;
    }

    private Path path(StoredFile file) {
        return dir.resolve("store").resolve(file.locations().get(0));
    }

    @Override
    protected StoredFile damage(StoredFile file) throws IOException {
        byte[] content = Files.readAllBytes(path(file));
        content[content.length - 1] ^= 0x40;
        Files.write(path(file), content);
        return file;
    }

    @Override
    protected StoredFile lose(StoredFile file) throws IOException {
        Files.delete(path(file));
        return file;
    }
}
