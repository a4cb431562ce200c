package io.rnic.cnc;

import io.rnic.cm.CmRejFlyweight;
import io.rnic.cm.CmState;
import io.rnic.shm.FdSocket;
import io.rnic.shm.SharedMemory;
import io.rnic.verbs.AccessFlags;
import io.rnic.verbs.AsyncEvent;
import io.rnic.verbs.CompletionQueue;
import io.rnic.verbs.Errno;
import io.rnic.verbs.PathMtu;
import io.rnic.verbs.QpAttrMask;
import io.rnic.verbs.QpAttributes;
import io.rnic.verbs.QpState;
import io.rnic.verbs.QpType;
import io.rnic.verbs.ScatterGatherList;
import io.rnic.verbs.SendFlags;
import io.rnic.verbs.SrqAttrMask;
import io.rnic.verbs.WcOpcode;
import io.rnic.verbs.WcStatus;
import io.rnic.verbs.WorkCompletion;
import io.rnic.verbs.WorkRequestRing;
import io.rnic.verbs.WrOpcode;
import org.agrona.BitUtil;
import org.agrona.concurrent.UnsafeBuffer;
import org.agrona.concurrent.broadcast.BroadcastBufferDescriptor;
import org.agrona.concurrent.errors.DistinctErrorLog;
import org.agrona.concurrent.ringbuffer.ManyToOneRingBuffer;
import org.agrona.concurrent.ringbuffer.RingBufferDescriptor;
import org.agrona.concurrent.status.CountersReader;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.File;
import java.io.IOException;
import java.lang.reflect.Field;
import java.lang.reflect.Modifier;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * The C header a second client library builds on ({@code src/main/c/include/rnic/driver_protocol.h}) against the
 * Java layouts, as the DPDK layout is checked at start-up: {@code src/test/c/print_protocol.c} is compiled against
 * the header with gcc and prints every constant the header defines and every length it computes; each is compared
 * with the Java constant of the same name (by class and prefix, reflection) or the Java computation. A constant that
 * changes on one side only fails here, and so does a Java constant of these classes without a name in the header.
 */
class ProtocolHeaderTest
{
    private static final Path INCLUDE = Path.of("src/main/c/include");
    private static final Path HEADER = INCLUDE.resolve("rnic/driver_protocol.h");
    private static final Path PROGRAM = Path.of("src/test/c/print_protocol.c");
    private static final Pattern DEFINE = Pattern.compile("^#define (RNIC_[A-Z0-9_]+)[ \\t]+\\S", Pattern.MULTILINE);
    private static final Pattern FUNCTION = Pattern.compile("^(rnic_[a-z0-9_]+)\\(([-0-9,]*)\\)$");

    /**
     * Header names no Java constant carries: each command's argument positions (today written by position in
     * DriverContext and read by position in DriverConductor) and the QP attributes' positions, which
     * {@link #shouldPlaceEveryQpAttributeWhereTheCodecWritesIt} checks against the codec instead.
     */
    private static final List<String> POSITION_PREFIXES = List.of("RNIC_ATTACH_", "RNIC_DEALLOC_PD_", "RNIC_REG_MR_",
        "RNIC_DEREG_MR_", "RNIC_CREATE_CQ_", "RNIC_DESTROY_CQ_", "RNIC_CREATE_QP_", "RNIC_MODIFY_QP_",
        "RNIC_DESTROY_QP_", "RNIC_RESOLVE_MAC_", "RNIC_CM_LISTEN_", "RNIC_CM_CONNECT_", "RNIC_CM_ACCEPT_",
        "RNIC_CM_REJECT_", "RNIC_CM_ID_", "RNIC_ALLOC_MW_", "RNIC_CREATE_SRQ_", "RNIC_MODIFY_SRQ_",
        "RNIC_OPEN_ASYNC_EVENTS_", "RNIC_QPATTR_");

    @TempDir
    Path work;

    @Test
    void shouldGiveEveryJavaLayoutConstantItsValueInTheHeader() throws Exception
    {
        final Map<String, String> printed = compileAndRun();
        final Map<String, Object> java = javaConstants();
        final List<String> mismatches = new ArrayList<>();
        int compared = 0;
        for (final Map.Entry<String, Object> constant : java.entrySet())
        {
            final String c = printed.get(constant.getKey());
            final String expected = constant.getValue() instanceof String text ? '"' + text + '"' :
                constant.getValue().toString();
            if (c == null)
            {
                mismatches.add(constant.getKey() + ": Java has " + expected + ", the header has no such name");
            }
            else if (!c.equals(expected))
            {
                mismatches.add(constant.getKey() + ": Java has " + expected + ", the header " + c);
            }
            compared++;
        }
        final TreeSet<String> headerOnly = new TreeSet<>();
        for (final String name : printed.keySet())
        {
            if (name.startsWith("RNIC_") && !java.containsKey(name) &&
                POSITION_PREFIXES.stream().noneMatch(name::startsWith))
            {
                headerOnly.add(name);
            }
        }
        assertTrue(mismatches.isEmpty(), mismatches.size() + " of " + compared + " constants differ between " + HEADER +
            " and the Java layouts:\n  " + String.join("\n  ", mismatches));
        assertTrue(headerOnly.isEmpty(), "the header defines constants no Java class names (name them in the Java " +
            "class the header mirrors, or remove them): " + headerOnly);
        assertTrue(compared > 300, "only " + compared + " constants compared: is the class list complete?");
    }

    @Test
    void shouldPlaceEveryQpAttributeWhereTheCodecWritesIt() throws Exception
    {
        final Map<String, String> printed = compileAndRun();
        final QpAttributes attributes = new QpAttributes();
        attributes.state = QpState.SQE;
        attributes.currentState = QpState.ERR;
        attributes.pathMtu = PathMtu.MTU_4096;
        attributes.qkey = 0x1111_0001;
        attributes.rqPsn = 0x222;
        attributes.sqPsn = 0x333;
        attributes.destQpNumber = 0x444;
        attributes.accessFlags = 0x555;
        attributes.pkeyIndex = 0x666;
        attributes.portNumber = 0x777;
        attributes.timeout = 0x888;
        attributes.retryCount = 0x999;
        attributes.rnrRetry = 0xAAA;
        attributes.minRnrTimer = 0xBBB;
        attributes.maxReadAtomic = 0xCCC;
        attributes.maxDestReadAtomic = 0xDDD;
        attributes.addressVector.destinationGid(0x1000_0000_0000_0001L, 0x2000_0000_0000_0002L).sourceGidIndex(0xEEE)
            .hopLimit(0xFFF).trafficClass(0x1001).flowLabel(0x1002).serviceLevel(0x1003)
            .destinationMac(0x1122_3344_5566L);
        final Map<String, Long> expected = new LinkedHashMap<>();
        expected.put("RNIC_QPATTR_STATE", (long)QpState.SQE.ordinal());
        expected.put("RNIC_QPATTR_CURRENT_STATE", (long)QpState.ERR.ordinal());
        expected.put("RNIC_QPATTR_PATH_MTU", (long)PathMtu.MTU_4096.ordinal());
        expected.put("RNIC_QPATTR_QKEY", 0x1111_0001L);
        expected.put("RNIC_QPATTR_RQ_PSN", 0x222L);
        expected.put("RNIC_QPATTR_SQ_PSN", 0x333L);
        expected.put("RNIC_QPATTR_DEST_QP_NUM", 0x444L);
        expected.put("RNIC_QPATTR_ACCESS_FLAGS", 0x555L);
        expected.put("RNIC_QPATTR_PKEY_INDEX", 0x666L);
        expected.put("RNIC_QPATTR_PORT_NUM", 0x777L);
        expected.put("RNIC_QPATTR_TIMEOUT", 0x888L);
        expected.put("RNIC_QPATTR_RETRY_CNT", 0x999L);
        expected.put("RNIC_QPATTR_RNR_RETRY", 0xAAAL);
        expected.put("RNIC_QPATTR_MIN_RNR_TIMER", 0xBBBL);
        expected.put("RNIC_QPATTR_MAX_RD_ATOMIC", 0xCCCL);
        expected.put("RNIC_QPATTR_MAX_DEST_RD_ATOMIC", 0xDDDL);
        expected.put("RNIC_QPATTR_AV_DGID_HIGH", 0x1000_0000_0000_0001L);
        expected.put("RNIC_QPATTR_AV_DGID_LOW", 0x2000_0000_0000_0002L);
        expected.put("RNIC_QPATTR_AV_SGID_INDEX", 0xEEEL);
        expected.put("RNIC_QPATTR_AV_HOP_LIMIT", 0xFFFL);
        expected.put("RNIC_QPATTR_AV_TRAFFIC_CLASS", 0x1001L);
        expected.put("RNIC_QPATTR_AV_FLOW_LABEL", 0x1002L);
        expected.put("RNIC_QPATTR_AV_SL", 0x1003L);
        expected.put("RNIC_QPATTR_AV_DMAC", 0x1122_3344_5566L);
        final UnsafeBuffer encoded = new UnsafeBuffer(new byte[ControlProtocol.MAX_MESSAGE_LENGTH]);
        QpAttributesCodec.encode(attributes, encoded, 0, 0);

        assertEquals(QpAttributesCodec.ARGS, expected.size(), "a QP attribute without a position in this test");
        for (final String name : printed.keySet())
        {
            if (name.startsWith("RNIC_QPATTR_") && !name.equals("RNIC_QPATTR_ARGS"))
            {
                assertTrue(expected.containsKey(name), name + " is in the header, not in this test");
            }
        }
        for (final Map.Entry<String, Long> field : expected.entrySet())
        {
            final String index = printed.get(field.getKey());
            assertTrue(index != null, field.getKey() + " is missing from the header");
            assertEquals(field.getValue(), ControlProtocol.arg(encoded, 0, Integer.parseInt(index)),
                field.getKey() + " (argument " + index + " of the attributes) is not where QpAttributesCodec puts it");
        }
    }

    @Test
    void shouldComputeTheFileLengthsTheDriverChecks() throws Exception
    {
        final Map<String, String> printed = compileAndRun();
        int compared = 0;
        for (final Map.Entry<String, String> line : printed.entrySet())
        {
            final Matcher call = FUNCTION.matcher(line.getKey());
            if (!call.matches())
            {
                continue;
            }
            final String[] parts = call.group(2).isEmpty() ? new String[0] : call.group(2).split(",");
            final int[] a = new int[parts.length];
            for (int i = 0; i < parts.length; i++)
            {
                a[i] = Integer.parseInt(parts[i]);
            }
            assertEquals(javaLength(call.group(1), a), Long.parseLong(line.getValue()), line.getKey());
            compared++;
        }
        assertTrue(compared > 300, "only " + compared + " computations compared");
    }

    private static long javaLength(final String function, final int[] a)
    {
        return switch (function)
        {
            case "rnic_wq_entry_length" -> WorkRequestRing.entryLength(a[0], a[1]);
            case "rnic_wq_required_bytes" -> WorkRequestRing.requiredBytes(a[0], a[1]);
            case "rnic_srq_ring_length" -> QpQueuesLayout.srqRingLength(a[0], a[1]);
            case "rnic_srq_file_length" -> QpQueuesLayout.srqFileLength(a[0], a[1]);
            case "rnic_qpf_recv_queue_offset" -> QpQueuesLayout.recvQueueOffset(a[0], a[1]);
            case "rnic_qpf_send_queue_offset" -> QpQueuesLayout.sendQueueOffset();
            case "rnic_qpf_file_length" -> QpQueuesLayout.fileLength(a[0], a[1], a[2], a[3]);
            case "rnic_cq_required_bytes" -> CompletionQueue.requiredBytes(a[0]);
            case "rnic_cq_file_length" -> QpQueuesLayout.completionQueueFileLength(a[0]);
            case "rnic_ae_file_length" -> AsyncEventRing.fileLength();
            case "rnic_ctl_length" -> ControlProtocol.length(a[0]);
            case "rnic_cnc_file_length" -> CncFile.fileLength(new CncFile.Lengths(a[0], a[1], a[2], a[3], a[4]));
            default -> throw new AssertionError("print_protocol.c prints " + function + ", which this test does not " +
                "know");
        };
    }

    /** Every constant the header mirrors, by its name in the header. */
    private static Map<String, Object> javaConstants() throws Exception
    {
        final Map<String, Object> constants = new LinkedHashMap<>();
        add(constants, CncFile.class, "RNIC_CNC_", false);
        add(constants, ControlProtocol.class, "RNIC_CTL_", false);
        add(constants, CmIdCodec.class, "RNIC_CMID_", false);
        add(constants, QpAttributesCodec.class, "RNIC_QPATTR_", false);
        add(constants, QpQueuesLayout.class, "RNIC_QPF_", false);
        add(constants, AsyncEventRing.class, "RNIC_AE_", false);
        add(constants, DeviceInfo.class, "RNIC_DEVINFO_", true);
        add(constants, DriverProcess.class, "RNIC_DRV_", false);
        add(constants, Class.forName("io.rnic.client.DriverConnection"), "RNIC_LIVE_", true);
        add(constants, FdSocket.class, "RNIC_FDS_", false);
        add(constants, SharedMemory.class, "RNIC_SHM_", false);
        add(constants, WorkRequestRing.class, "RNIC_WQ_", false);
        add(constants, CompletionQueue.class, "RNIC_CQ_", false);
        add(constants, QpState.class, "RNIC_QP_STATE_", false);
        add(constants, QpType.class, "RNIC_QP_TYPE_", false);
        add(constants, PathMtu.class, "RNIC_PATH_", false);
        add(constants, CmState.class, "RNIC_CM_STATE_", false);
        add(constants, WcStatus.class, "RNIC_WC_STATUS_", false);
        add(constants, WcOpcode.class, "RNIC_WC_OPCODE_", false);
        add(constants, WorkCompletion.class, "RNIC_WC_", false);
        add(constants, WrOpcode.class, "RNIC_WR_", false);
        add(constants, SendFlags.class, "RNIC_SEND_", false);
        add(constants, AccessFlags.class, "RNIC_ACCESS_", false);
        add(constants, QpAttrMask.class, "RNIC_QP_MASK_", false);
        add(constants, SrqAttrMask.class, "RNIC_SRQ_MASK_", false);
        add(constants, AsyncEvent.class, "RNIC_EVENT_", false);
        add(constants, Errno.class, "RNIC_ERRNO_", false);
        add(constants, ScatterGatherList.class, "RNIC_", false);
        // Agrona's layouts inside the CnC file
        add(constants, RingBufferDescriptor.class, "RNIC_RB_", false);
        add(constants, org.agrona.concurrent.ringbuffer.RecordDescriptor.class, "RNIC_RB_RECORD_", false);
        add(constants, BroadcastBufferDescriptor.class, "RNIC_BC_", false);
        add(constants, org.agrona.concurrent.broadcast.RecordDescriptor.class, "RNIC_BC_RECORD_", false);
        add(constants, CountersReader.class, "RNIC_COUNTERS_", false);
        add(constants, DistinctErrorLog.class, "RNIC_ERRLOG_", false);
        constants.put("RNIC_RB_PADDING_MSG_TYPE_ID", ManyToOneRingBuffer.PADDING_MSG_TYPE_ID);
        constants.put("RNIC_CACHE_LINE_LENGTH", BitUtil.CACHE_LINE_LENGTH);
        constants.put("RNIC_CM_REJECT_MAX_PRIVATE_DATA_LENGTH", CmRejFlyweight.PRIVATE_DATA_LENGTH);
        return constants;
    }

    /**
     * The static final numbers and strings {@code type} declares (private ones too when asked), or an enum's
     * constants by ordinal, each under {@code prefix} + its Java name.
     */
    private static void add(
        final Map<String, Object> into, final Class<?> type, final String prefix, final boolean includePrivate)
        throws IllegalAccessException
    {
        if (type.isEnum())
        {
            for (final Object constant : type.getEnumConstants())
            {
                into.put(prefix + ((Enum<?>)constant).name(), (long)((Enum<?>)constant).ordinal());
            }
            return;
        }
        for (final Field field : type.getDeclaredFields())
        {
            final int modifiers = field.getModifiers();
            final Class<?> fieldType = field.getType();
            final boolean number = fieldType == int.class || fieldType == long.class;
            if (!Modifier.isStatic(modifiers) || !Modifier.isFinal(modifiers) || field.isSynthetic() ||
                (!number && fieldType != String.class) || (Modifier.isPrivate(modifiers) && !includePrivate))
            {
                continue;
            }
            field.setAccessible(true);
            final Object value = field.get(null);
            into.put(prefix + field.getName(), number ? ((Number)value).longValue() : value);
        }
    }

    /** The program's output, by name; compiled and run once per test (a few hundred ms). */
    private Map<String, String> compileAndRun() throws IOException, InterruptedException
    {
        final Path gcc = onPath("gcc");
        assumeTrue(gcc != null, "gcc is not installed (deploy/setup.sh installs it): the C header was not checked");
        final StringBuilder names = new StringBuilder();
        final Matcher define = DEFINE.matcher(Files.readString(HEADER, StandardCharsets.UTF_8));
        while (define.find())
        {
            names.append("RNIC_NAME(").append(define.group(1)).append(")\n");
        }
        Files.writeString(work.resolve("protocol_names.inc"), names);
        final Path binary = work.resolve("print_protocol");
        run(List.of(gcc.toString(), "-Wall", "-Wextra", "-Werror", "-std=c11", "-pedantic", "-I", INCLUDE.toString(),
            "-I", work.toString(), PROGRAM.toString(), "-o", binary.toString()));
        final Map<String, String> printed = new LinkedHashMap<>();
        for (final String line : run(List.of(binary.toString())).split("\n"))
        {
            final int space = line.indexOf(' ');
            assertTrue(space > 0, "not a NAME VALUE line: " + line);
            printed.put(line.substring(0, space), line.substring(space + 1));
        }
        return printed;
    }

    private String run(final List<String> command) throws IOException, InterruptedException
    {
        final Process process = new ProcessBuilder(command).redirectErrorStream(true).start();
        final String output = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertEquals(0, process.waitFor(), String.join(" ", command) + " failed:\n" + output);
        return output;
    }

    private static Path onPath(final String program)
    {
        for (final String directory : System.getenv().getOrDefault("PATH", "").split(File.pathSeparator))
        {
            final Path candidate = Path.of(directory, program);
            if (!directory.isEmpty() && Files.isExecutable(candidate))
            {
                return candidate;
            }
        }
        return null;
    }
}
