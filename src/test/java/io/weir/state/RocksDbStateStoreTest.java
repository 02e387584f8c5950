package io.weir.state;

import java.io.IOException;
import java.nio.file.Path;

/** The state contract on the RocksDB backend. */
class RocksDbStateStoreTest extends StateStoreContract {
    @Override
    StateBackend newBackend(Path root) throws IOException {
        return new RocksDbBackend(root, new RocksDbSettings(8 << 20, 4 << 20));
    }
}
