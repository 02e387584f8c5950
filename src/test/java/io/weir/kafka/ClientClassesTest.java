package io.weir.kafka;

import static org.junit.jupiter.api.Assertions.assertEquals;

import org.junit.jupiter.api.Test;

class ClientClassesTest {
    @Test
    void everyEntryPointExistsInThisVersionOfTheClients() {
        // A name the clients renamed would be skipped silently at run time: here it fails.
        assertEquals(ClientClasses.ENTRY_POINTS.size(), ClientClasses.load());
    }
}
