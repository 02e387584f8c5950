package io.weir.state;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Whether a backend's directory holds state from an earlier run (an instance without any connects its snapshot reader ahead). */
class RocksDbBackendLocalStateTest {
    @TempDir
    Path dir;

    @Test
    void aMissingOrEmptyStateDirectoryHoldsNothingLocalAndOneWithATaskDoes() throws Exception {
        Path instance = dir.resolve("app").resolve("i1");
        assertTrue(RocksDbBackend.holdsNothing(instance), "missing");
        Files.createDirectories(instance);
        assertTrue(RocksDbBackend.holdsNothing(instance), "empty");
        Files.createDirectories(instance.resolve("app-running-totals-0"));
        assertFalse(RocksDbBackend.holdsNothing(instance), "a task's directory from an earlier run");
    }
}
