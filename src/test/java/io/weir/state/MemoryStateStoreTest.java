package io.weir.state;

import java.nio.file.Path;

/** The state contract on the memory backend. */
class MemoryStateStoreTest extends StateStoreContract {
    @Override
    StateBackend newBackend(Path root) {
        return new MemoryBackend();
    }
}
