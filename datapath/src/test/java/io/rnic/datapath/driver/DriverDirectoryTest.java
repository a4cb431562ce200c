package io.rnic.datapath.driver;

import io.rnic.cnc.CncException;
import io.rnic.testing.ForkedJvm;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.List;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * What a driver leaves in its directory: nothing after a clean stop or a refused start (its lock file included, and
 * the directory when it made it); and, when another user's old directory is in the way, that user and the fix.
 */
class DriverDirectoryTest
{
    private static final long CLIENT_TIMEOUT_NS = TimeUnit.SECONDS.toNanos(10);
    private static final Path SETPRIV = Path.of("/usr/bin/setpriv");

    @TempDir
    Path root;

    @Test
    void shouldRemoveItsFilesAndTheDirectoryItMadeWhenItStops() throws Exception
    {
        final Path directory = root.resolve("rnic-tc0");
        try (DriverFixture fixture = new DriverFixture(directory, CLIENT_TIMEOUT_NS))
        {
            assertTrue(Files.exists(directory.resolve(DirectoryLock.FILE_NAME)));

            fixture.driver.close();

            assertFalse(Files.exists(directory), "a clean stop leaves nothing behind");
        }
    }

    @Test
    void shouldLeaveADirectoryItDidNotMakeEmptyWhenItStops() throws Exception
    {
        final Path directory = Files.createDirectory(root.resolve("rnic-tc0"));
        try (DriverFixture fixture = new DriverFixture(directory, CLIENT_TIMEOUT_NS))
        {
            fixture.driver.close();

            assertEquals(List.of(), list(directory));
        }
    }

    @Test
    void shouldLeaveNothingBehindWhenItsStartIsRefused() throws Exception
    {
        final Path made = root.resolve("rnic-tc0");
        final Path existing = Files.createDirectory(root.resolve("rnic-tc1"));
        for (final Path directory : List.of(made, existing))
        {
            final IllegalArgumentException refused = assertThrows(IllegalArgumentException.class, () ->
                Driver.start(directory, CLIENT_TIMEOUT_NS, counters ->
                {
                    throw new IllegalArgumentException("no engine on this port");
                }));
            assertEquals("no engine on this port", refused.getMessage());
        }
        assertFalse(Files.exists(made), "the directory the refused driver made");
        assertEquals(List.of(), list(existing));
    }

    @Test
    void shouldRefuseASecondDriverWithoutTouchingTheFirstOnesLock() throws Exception
    {
        final Path directory = root.resolve("rnic-tc0");
        try (DriverFixture fixture = new DriverFixture(directory, CLIENT_TIMEOUT_NS))
        {
            final CncException refused = assertThrows(CncException.class, () -> fixture.startDriver(CLIENT_TIMEOUT_NS));
            assertTrue(refused.getMessage().startsWith("another rnic driver (pid " + ProcessHandle.current().pid()),
                refused.getMessage());
            assertTrue(Files.exists(directory.resolve(DirectoryLock.FILE_NAME)), "the first driver's lock stays");
        }
    }

    @Test
    void shouldNameTheOwnerOfADirectoryAnotherUserLeft(@TempDir final Path copies) throws Exception
    {
        assumeTrue(Files.isExecutable(SETPRIV) && "root".equals(System.getProperty("user.name")),
            "needs root and setpriv to start a driver as another user");
        Files.setPosixFilePermissions(root, PosixFilePermissions.fromString("rwxr-xr-x"));
        final Path directory = Files.createDirectory(root.resolve("rnic-tc0"),
            PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rwxrwx---"))); // what root's left

        final ForkedJvm.Result result = ForkedJvm.run(
            List.of(SETPRIV.toString(), "--reuid=nobody", "--regid=nogroup", "--clear-groups"),
            ForkedJvm.readableClassPath(copies), ForkedDriverMain.class, Set.of(), directory.toString(), "10000");

        assertEquals(1, result.exit(), result.toString());
        assertTrue(result.stderr().contains("the driver directory " + directory + " belongs to root, not to nobody " +
            "who runs this driver: a driver run as root left it behind; remove it (rm -r " + directory + ") or " +
            "choose another with --dir"), result.toString());
    }

    private static List<Path> list(final Path directory) throws Exception
    {
        try (Stream<Path> files = Files.list(directory))
        {
            return files.toList();
        }
    }
}
