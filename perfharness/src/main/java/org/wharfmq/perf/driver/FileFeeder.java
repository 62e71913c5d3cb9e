package org.wharfmq.perf.driver;

import org.wharfmq.flow.node.FileInputNode;
import org.wharfmq.perf.flow.FileFlow;

import javax.jms.JMSException;
import javax.jms.Message;
import javax.jms.MessageConsumer;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.BitSet;
import java.util.concurrent.TimeUnit;

/**
 * Not JMSPerfHarness's: feeds a FileInput flow (F-FILE) and takes what it produced. Each worker keeps up to
 * {@code -fw} files of its own ({@value #DEFAULT_WINDOW} without it) in the flow's folder ({@code -iq}), as the seed's
 * script kept its folder topped up, so the flow always finds files to take and the rate is the flow's, not its polling
 * interval's: it writes each file under a {@code .part} name and renames it into the folder (a rename is atomic: the
 * node never sees half a file), named {@code KEY~NUMBER.msg} ({@link FileFlow#fileName}), then takes the flow's
 * outputs from {@code -oq} with a consumer selecting its key as correlation id. An operation is an output received;
 * its latency runs from the file's rename to its output's receipt.
 *
 * <p>Every file must come out once: an output whose number already came is a duplicate. How long a file waits for
 * its turn follows how many are in flight (every feeder's window over the node's rate: at a few syncs a second on a
 * busy disk, tens of seconds), so the wait is not a fixed time but watches progress: a feeder waits as long as a file
 * of its own is still in the folder and the node archives files ({@link ArchiveWatch}), and gives up only when for
 * {@code -to} seconds no output came and either the node archived no file or none of its files was left to take. Then
 * every file still outstanding is a loss (and the worker stops: its window is stuck). When the run stops the worker
 * waits for the outputs of the files it has written, by the same rule.
 */
final class FileFeeder extends Worker {

    /** Files a worker keeps in the folder when {@code -fw} is not given. */
    static final int DEFAULT_WINDOW = 10;

    private final byte[] body;
    private final String key;
    private final int window;
    /** When each outstanding file was renamed into the folder, at {@code number % window}. */
    private final long[] writtenNanos;
    /** The numbers whose output came. */
    private final BitSet arrived = new BitSet();
    private final long timeoutNanos;
    private Path directory;
    private ArchiveWatch archive;
    private MessageConsumer consumer;
    private long written;
    /** The lowest number whose output has not come: every outstanding file is in [lowest, lowest + window). */
    private int lowest;

    FileFeeder(WorkerSetup setup) {
        super(setup);
        this.body = setup.bodies().bytes();
        this.key = "perf-" + setup.runId() + "-" + setup.processId() + "-" + index;
        this.window = options.flowWindow() > 0 ? options.flowWindow() : DEFAULT_WINDOW;
        this.writtenNanos = new long[window];
        this.timeoutNanos = TimeUnit.MILLISECONDS.toNanos(receiveTimeoutMillis);
    }

    @Override
    void open() throws JMSException {
        directory = Path.of(options.requestQueue());
        if (!Files.isDirectory(directory)) {
            throw new IllegalStateException("-iq " + directory + ": the flow's folder does not exist");
        }
        archive = new ArchiveWatch(FileInputNode.directory(directory).archiveFolder());
        consumer = session.createConsumer(provider.queue(session, options.replyQueue()), "JMSCorrelationID = '" + key + "'");
    }

    @Override
    void iterate() throws JMSException {
        while (written - lowest < window) {
            write();
        }
        if (!take()) {
            throw new IllegalStateException("F-FILE stalled: " + (written - arrived.cardinality()) + " file(s) of "
                    + name + " lost");
        }
    }

    @Override
    void finish() throws JMSException {
        while (lowest < written) {
            if (!take()) {
                return;
            }
        }
    }

    /** Whether a file of this feeder's is still in the folder, waiting for the node to take it. */
    private boolean waitingInFolder() {
        for (int n = arrived.nextClearBit(lowest); n < written; n = arrived.nextClearBit(n + 1)) {
            if (Files.exists(directory.resolve(FileFlow.fileName(key, n)))) {
                return true;
            }
        }
        return false;
    }

    private void write() {
        String name = FileFlow.fileName(key, written);
        try {
            Path part = Files.write(directory.resolve(name + ".part"), body);
            Files.move(part, directory.resolve(name), StandardCopyOption.ATOMIC_MOVE);
        } catch (IOException e) {
            throw new UncheckedIOException("writing " + name + " into " + directory, e);
        }
        writtenNanos[(int) (written % window)] = System.nanoTime();
        written++;
    }

    /**
     * Takes one output; false (every outstanding file counted lost) when for {@code -to} seconds none came and the
     * node made no progress this feeder waits on: it archived no file while one of this feeder's was in the folder.
     */
    private boolean take() throws JMSException {
        long progressNanos = System.nanoTime();
        Message output;
        while ((output = consumer.receive(pollMillis())) == null) {
            if (archive.advanced() && waitingInFolder()) {
                progressNanos = System.nanoTime();
            } else if (System.nanoTime() - progressNanos >= timeoutNanos) {
                String why = waitingInFolder() ? "no file archived by the node in " + options.timeoutSeconds() + " s"
                        : "no output within " + options.timeoutSeconds() + " s of the node taking it";
                for (int n = arrived.nextClearBit(lowest); n < written; n = arrived.nextClearBit(n + 1)) {
                    control.loss(why + ": file " + FileFlow.fileName(key, n) + " of " + name);
                }
                return false;
            }
        }
        int number = (int) output.getLongProperty(FileFlow.NUMBER);
        if (number < 0 || number >= written) {
            control.unexpected("an output for file " + number + " of " + name + ", which wrote " + written);
        } else if (arrived.get(number)) {
            control.duplicate("a second output for file " + FileFlow.fileName(key, number) + " of " + name);
        } else {
            arrived.set(number);
            recordLatency(writtenNanos[number % window]);
            lowest = arrived.nextClearBit(lowest);
            control.iterationDone();
        }
        return true;
    }
}
