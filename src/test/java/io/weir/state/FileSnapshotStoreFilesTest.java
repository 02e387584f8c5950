package io.weir.state;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class FileSnapshotStoreFilesTest {
    @TempDir
    Path dir;

    @Test
    void aWrittenFileReadsBackWithItsSizeAndChecksum() throws Exception {
        FileSnapshotStore store = new FileSnapshotStore(dir.resolve("snapshots"));
        byte[] content = {1, 2, 3, 4, 5};

        StoredFile file = store.write("task-0/a.bin", content);

        assertEquals(5, file.size());
        assertEquals(List.of("task-0/a.bin"), file.locations());
        assertArrayEquals(content, store.read(file));
        assertFalse(Files.exists(dir.resolve("snapshots/task-0/a.bin.tmp")), "temporary file left behind");
    }

    @Test
    void aChangedFileIsReportedCorrupt() throws Exception {
        FileSnapshotStore store = new FileSnapshotStore(dir);
        StoredFile file = store.write("t/a.bin", new byte[] {1, 2, 3});
        Files.write(dir.resolve("t/a.bin"), new byte[] {1, 2, 4});

        IOException e = assertThrows(IOException.class, () -> store.read(file));
        assertTrue(e.getMessage().contains("corrupt"), e.getMessage());
    }

    @Test
    void aNameOutsideTheDirectoryIsRefused() throws Exception {
        FileSnapshotStore store = new FileSnapshotStore(dir.resolve("inner"));

        assertThrows(IOException.class, () -> store.write("../escape.bin", new byte[] {1}));
        assertFalse(Files.exists(dir.resolve("escape.bin")));
    }

    @Test
    void deleteRemovesTheFileAndToleratesAMissingOne() throws Exception {
        FileSnapshotStore store = new FileSnapshotStore(dir);
        StoredFile file = store.write("t/a.bin", new byte[] {1});

        store.delete(file);
        store.delete(file);

        assertFalse(Files.exists(dir.resolve("t/a.bin")));
        assertThrows(IOException.class, () -> store.read(file));
    }

    @Test
    void writingAnExistingNameReplacesIt() throws Exception {
        FileSnapshotStore store = new FileSnapshotStore(dir);
        store.write("t/a.bin", new byte[] {1});
        StoredFile second = store.write("t/a.bin", new byte[] {2, 2});

        assertArrayEquals(new byte[] {2, 2}, store.read(second));
    }
}
