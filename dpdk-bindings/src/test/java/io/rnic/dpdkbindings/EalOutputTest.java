package io.rnic.dpdkbindings;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.invoke.MethodHandle;
import java.net.StandardProtocolFamily;
import java.net.UnixDomainSocketAddress;
import java.nio.channels.ServerSocketChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * What EAL prints while it starts, kept off the terminal and folded into one line when it fails, and the run-time
 * directory it would leave behind. The outputs below are EAL 22.11's own, as captured from the cases named.
 */
class EalOutputTest
{
    /** {@code --bogus --vdev=net_null0}: getopt's line, EAL's usage (shortened here), its FATAL line. */
    private static final String UNRECOGNISED = """
        EAL: Detected CPU lcores: 2
        EAL: Detected NUMA nodes: 1
        rnic: unrecognized option '--bogus'

        Usage: rnic [options]

        EAL common options:
          -c COREMASK         Hexadecimal bitmask of cores to run on
          --huge-dir          Directory where hugetlbfs is mounted
        rnic: unrecognized option '--bogus'
        EAL: FATAL: Invalid 'command line' arguments.
        EAL: Invalid 'command line' arguments.
        """;
    /** {@code --vdev=net_null0} with no hugepage reserved, as root. */
    private static final String NO_HUGEPAGES = """
        EAL: FATAL: Cannot get hugepage information.
        EAL: Cannot get hugepage information.
        """;
    private static final List<String> ARGS = List.of("--bogus", "--log-level=warning");

    @Test
    void shouldFoldTheRefusedOptionIntoOneLineWithoutTheUsage()
    {
        final String message = Eal.explain(ARGS, DpdkBindings.EINVAL, "Invalid argument", UNRECOGNISED, 0);
        assertEquals("rte_eal_init [--bogus, --log-level=warning] failed: unrecognized option '--bogus': Invalid " +
            "argument (errno 22): an EAL argument is wrong (`dpdk-testpmd --help` lists EAL's options)", message);
    }

    @Test
    void shouldSayThatNoHugepagesAreReservedAndHowToRunWithoutThem()
    {
        final String message = Eal.explain(List.of("--vdev=net_null0"), DpdkBindings.EACCES, "Permission denied",
            NO_HUGEPAGES, 0);
        assertEquals("rte_eal_init [--vdev=net_null0] failed: Cannot get hugepage information: Permission denied " +
            "(errno 13). No hugepages are reserved here: run without them (--no-huge -m 512 in the EAL arguments) or " +
            "reserve some as root (echo 512 > /proc/sys/vm/nr_hugepages)", message);
        assertTrue(Eal.explain(List.of(), DpdkBindings.EACCES, "Permission denied", NO_HUGEPAGES, 64)
            .endsWith("EAL could not use the hugepages (64 reserved; it needs root, and hugetlbfs mounted at " +
                "/dev/hugepages): run without them with --no-huge -m 512"));
        assertFalse(Eal.explain(List.of("--no-huge"), DpdkBindings.EACCES, "Permission denied", NO_HUGEPAGES, 0)
            .contains("--no-huge -m 512"), "--no-huge is there already");
    }

    @Test
    void shouldKeepOnlyWarningsAndErrorsOfASuccessfulStart()
    {
        assertEquals("", Eal.warnings("TELEMETRY: No legacy callbacks, legacy socket not created\n"));
        assertEquals("EAL: WARNING! Base virtual address hint (0x1) != (0x2) not respected!\n",
            Eal.warnings("EAL: Detected CPU lcores: 2\n" +
                "EAL: WARNING! Base virtual address hint (0x1) != (0x2) not respected!\n"));
    }

    @Test
    void shouldFindTheFilePrefixEitherWay()
    {
        assertEquals("rte", Eal.filePrefix(List.of("--no-huge")));
        assertEquals("a1", Eal.filePrefix(List.of("--file-prefix", "a1", "--no-huge")));
        assertEquals("b2", Eal.filePrefix(List.of("--file-prefix=b2")));
    }

    @Test
    void shouldRemoveTheRuntimeDirectoryWithItsFilesOnlyWhenTheyAreOurs(@TempDir final Path root) throws IOException
    {
        final Path ours = Files.createDirectories(root.resolve("ours"));
        Files.writeString(ours.resolve("config"), "x");
        Files.writeString(ours.resolve("mp_socket"), "x");
        Eal.removeRuntimeDir(ours, true);
        assertFalse(Files.exists(ours));

        final Path shared = Files.createDirectories(root.resolve("shared"));
        Files.writeString(shared.resolve("config"), "another process's");
        Eal.removeRuntimeDir(shared, false);
        assertTrue(Files.exists(shared.resolve("config")), "not ours: left alone");

        final Path empty = Files.createDirectories(root.resolve("empty"));
        Eal.removeRuntimeDir(empty, false);
        assertFalse(Files.exists(empty));

        // the telemetry's socket, still bound when the JVM's shutdown hooks run: ours, so it goes, and the directory
        final Path withSocket = Files.createDirectories(root.resolve("telemetry"));
        try (ServerSocketChannel socket = ServerSocketChannel.open(StandardProtocolFamily.UNIX))
        {
            socket.bind(UnixDomainSocketAddress.of(withSocket.resolve("dpdk_telemetry.v2")));
            Eal.removeRuntimeDir(withSocket, false);
            assertFalse(Files.exists(withSocket));
        }
    }

    @Test
    void shouldCaptureWhatNativeCodeWritesToStandardOutputAndErrorThenRestoreThem() throws Throwable
    {
        final Linker linker = Linker.nativeLinker();
        // puts: C stdio, buffered when stdout is not a terminal: the capture flushes it before restoring fd 1
        final MethodHandle puts = linker.downcallHandle(linker.defaultLookup().find("puts").orElseThrow(),
            FunctionDescriptor.of(JAVA_INT, ADDRESS));
        // write(2, ...): unbuffered, as EAL's log before its stream is set up
        final MethodHandle write = linker.downcallHandle(linker.defaultLookup().find("write").orElseThrow(),
            FunctionDescriptor.of(JAVA_LONG, JAVA_INT, ADDRESS, JAVA_LONG));
        final Path stdout = Files.readSymbolicLink(Path.of("/proc/self/fd/1"));
        final Path stderr = Files.readSymbolicLink(Path.of("/proc/self/fd/2"));
        final NativeOutput.Captured captured = NativeOutput.capture(() ->
        {
            try (Arena arena = Arena.ofConfined())
            {
                final int ignored = (int)puts.invokeExact(arena.allocateFrom("from stdio"));
                final long written = (long)write.invokeExact(2, arena.allocateFrom("to fd 2\n"), 8L);
            }
            catch (final Throwable ex)
            {
                throw new IllegalStateException(ex);
            }
            return 42;
        });
        assertEquals(42, captured.result());
        assertTrue(captured.output().contains("from stdio\n") && captured.output().contains("to fd 2\n"),
            captured.output());
        assertEquals(stdout, Files.readSymbolicLink(Path.of("/proc/self/fd/1")), "fd 1 restored");
        assertEquals(stderr, Files.readSymbolicLink(Path.of("/proc/self/fd/2")), "fd 2 restored");
        assertEquals("", NativeOutput.capture(() -> 7).output(), "nothing of the first capture is seen again");
    }
}
