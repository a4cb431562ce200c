package io.rnic.cnc;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.io.RandomAccessFile;
import java.nio.file.Path;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** A client maps only a CnC file of its own protocol version, and says in one line why not otherwise. */
class CncFileVersionTest
{
    private static final long CLIENT_TIMEOUT_NS = 1_000_000_000L;

    @TempDir
    Path directory;

    @Test
    void shouldRefuseACncFileOfAnotherVersionNamingBothVersionsAndTheFix() throws IOException
    {
        createReady();
        writeVersion(CncFile.VERSION - 1);

        final CncException refused = assertThrows(CncException.class, () -> CncFile.open(directory));

        assertEquals(directory.resolve(CncFile.FILE_NAME) + " is of protocol version " + (CncFile.VERSION - 1) +
            ", this rnic speaks version " + CncFile.VERSION + ": use the rnic build of the driver, or restart the " +
            "driver from this build (bin/rnic driver)", refused.getMessage());
        assertTrue(!refused.getMessage().contains("\n"), "one line");
    }

    @Test
    void shouldCallACncFileWithoutItsVersionNotReadyYet() throws IOException
    {
        createReady();
        writeVersion(0);

        final CncException refused = assertThrows(CncException.class, () -> CncFile.open(directory));

        assertTrue(refused.getMessage().contains("is not ready (version 0): the driver is starting"),
            refused.getMessage());
    }

    @Test
    void shouldOpenACncFileOfItsOwnVersion() throws IOException
    {
        createReady();

        try (CncFile cnc = CncFile.open(directory))
        {
            assertEquals(CLIENT_TIMEOUT_NS, cnc.clientTimeoutNs());
        }
    }

    private void createReady()
    {
        try (CncFile cnc = CncFile.create(directory, new CncFile.Lengths(1024, 1024, 4, 1024, 64), CLIENT_TIMEOUT_NS))
        {
            cnc.markReady();
        }
    }

    private void writeVersion(final int version) throws IOException
    {
        try (RandomAccessFile file = new RandomAccessFile(directory.resolve(CncFile.FILE_NAME).toFile(), "rw"))
        {
            file.seek(CncFile.VERSION_OFFSET);
            file.writeInt(Integer.reverseBytes(version)); // little-endian
        }
    }
}
