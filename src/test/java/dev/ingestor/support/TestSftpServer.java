package dev.ingestor.support;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.channels.SeekableByteChannel;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.OpenOption;
import java.nio.file.Path;
import java.nio.file.attribute.FileAttribute;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;

import org.apache.sshd.common.file.virtualfs.VirtualFileSystemFactory;
import org.apache.sshd.server.SshServer;
import org.apache.sshd.server.keyprovider.SimpleGeneratorHostKeyProvider;
import org.apache.sshd.sftp.server.DirectoryHandle;
import org.apache.sshd.sftp.server.FileHandle;
import org.apache.sshd.sftp.server.SftpFileSystemAccessor;
import org.apache.sshd.sftp.server.SftpSubsystemFactory;
import org.apache.sshd.sftp.server.SftpSubsystemProxy;

/**
 * A real SFTP server in the test JVM (Apache MINA SSHD, as Camel's own tests use), serving a temporary
 * folder. It can be stopped and started again on the same port, to be a server that goes away and returns, and
 * a listing of a folder can be made to fail once, as when entries vanish while a client lists it, and so can a
 * download. It keeps what
 * each login did: when it logged in and when it listed a folder (once per poll of a client), so a test can tell
 * which of several clients polled, and when.
 */
public final class TestSftpServer {

    private final Path root;
    /** The logins it accepts, by name. */
    private final Map<String, String> users = new ConcurrentHashMap<>();
    /** What clients did, in order. */
    private final List<Event> events = new CopyOnWriteArrayList<>();
    /** Names of folders whose next listing fails. */
    private final Set<String> failingListings = ConcurrentHashMap.newKeySet();
    /** Names of files whose next opening fails. */
    private final Set<String> failingReads = ConcurrentHashMap.newKeySet();
    /** Bytes read by clients, per file name. */
    private final Map<String, java.util.concurrent.atomic.AtomicLong> reads = new ConcurrentHashMap<>();
    /** Files whose next download fails after its first read, by name. */
    private final Set<String> brokenDownloads = ConcurrentHashMap.newKeySet();
    /** Files written again after their next first read, by name. */
    private final Map<String, byte[]> rewrites = new ConcurrentHashMap<>();
    /** Files written anew when a client next looks at each alone (not as an entry of its folder), by name. */
    private final Map<String, byte[]> changesAtLook = new ConcurrentHashMap<>();
    /** Files whose next download stalls after its first read, and folders whose next listing stalls, by name. */
    private final Set<String> stalls = ConcurrentHashMap.newKeySet();
    /** Counted down when the stalls end: each stalled read or listing then fails. */
    private volatile java.util.concurrent.CountDownLatch stallsEnd = new java.util.concurrent.CountDownLatch(1);
    private SshServer server;
    private int port;

    public TestSftpServer(String username, String password) {
        users.put(username, password);
        try {
            this.root = Files.createTempDirectory("ingestor-sftp-");
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        start();
    }

    public synchronized void start() {
        SshServer sshd = SshServer.setUpDefaultServer();
        sshd.setHost("127.0.0.1");
        sshd.setPort(port); // 0 the first time, then the same port again
        sshd.setKeyPairProvider(
                new SimpleGeneratorHostKeyProvider(root.resolveSibling(root.getFileName() + "-hostkey.ser")));
        SftpSubsystemFactory sftp = new SftpSubsystemFactory();
        sftp.setFileSystemAccessor(new SftpFileSystemAccessor() {
            @Override
            public DirectoryStream<Path> openDirectory(SftpSubsystemProxy subsystem, DirectoryHandle dirHandle,
                    Path dir,
                    String handle, LinkOption... linkOptions) throws IOException {
                events.add(new Event(subsystem.getServerSession().getUsername(), "list", System.nanoTime()));
                if (dir.getFileName() != null && failingListings.remove(dir.getFileName().toString())) {
                    throw new IOException("entries of " + dir + " vanished while it was listed");
                }
                if (dir.getFileName() != null && stalls.remove(dir.getFileName().toString())) {
                    stall(subsystem.getServerSession().getUsername(), dir);
                }
                return SftpFileSystemAccessor.super.openDirectory(subsystem, dirHandle, dir, handle, linkOptions);
            }

            @Override
            public Map<String, ?> readFileAttributes(SftpSubsystemProxy subsystem, Path file, String view,
                    LinkOption... options) throws IOException {
                byte[] content = file.getFileName() == null ? null : changesAtLook.get(file.getFileName().toString());
                if (content != null && !inDirectoryListing()
                        && changesAtLook.remove(file.getFileName().toString(), content)) {
                    Files.write(file, content);
                    events.add(new Event(subsystem.getServerSession().getUsername(), "changed-at-look",
                            System.nanoTime()));
                }
                return SftpFileSystemAccessor.super.readFileAttributes(subsystem, file, view, options);
            }

            @Override
            public SeekableByteChannel openFile(SftpSubsystemProxy subsystem, FileHandle fileHandle, Path file,
                    String handle, Set<? extends OpenOption> options, FileAttribute<?>... attrs) throws IOException {
                if (file.getFileName() != null && failingReads.remove(file.getFileName().toString())) {
                    events.add(new Event(subsystem.getServerSession().getUsername(), "read-failed",
                            System.nanoTime()));
                    throw new IOException(file + " could not be opened");
                }
                SeekableByteChannel channel = SftpFileSystemAccessor.super.openFile(subsystem, fileHandle, file,
                        handle, options, attrs);
                String name = file.getFileName() == null ? "" : file.getFileName().toString();
                return options.contains(java.nio.file.StandardOpenOption.WRITE)
                        ? channel
                        : new CountedReads(channel, name, file);
            }
        });
        sshd.setSubsystemFactories(List.of(sftp));
        sshd.setFileSystemFactory(new VirtualFileSystemFactory(root));
        sshd.setPasswordAuthenticator((user, pass, session) -> {
            boolean accepted = pass != null && pass.equals(users.get(user));
            if (accepted) {
                events.add(new Event(user, "login", System.nanoTime()));
            }
            return accepted;
        });
        try {
            sshd.start();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        server = sshd;
        port = sshd.getPort();
    }

    public synchronized void stop() {
        try {
            server.stop(true);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** A known_hosts file holding this server's own line ({@link #knownHostsLine}); its path. */
    public String knownHostsFile() {
        return knownHostsFile("known", knownHostsLine());
    }

    /** A known_hosts file named after {@code name}, beside the server's root folder, holding {@code line}; its path. */
    public String knownHostsFile(String name, String line) {
        try {
            Path file = root().resolveSibling(root().getFileName() + "-" + name + "_hosts");
            Files.writeString(file, line + "\n");
            return file.toString();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** A known_hosts line for this server, as OpenSSH writes it for a port other than 22. */
    public String knownHostsLine() {
        try {
            java.security.PublicKey key = server.getKeyPairProvider().loadKeys(null).iterator().next().getPublic();
            return "[127.0.0.1]:" + port + " " + org.apache.sshd.common.config.keys.PublicKeyEntry.toString(key);
        } catch (Exception e) {
            throw new IllegalStateException("host key of the test SFTP server", e);
        }
    }

    /** The next listing of a folder named {@code name} fails once; the ones after it succeed. */
    public void failNextListingOf(String name) {
        failingListings.add(name);
    }

    /** The next opening of a file named {@code name} (a download) fails once; the ones after it succeed. */
    public void failNextReadOf(String name) {
        failingReads.add(name);
    }

    /** The next download of the file named {@code name} fails after its first read, as a connection that breaks. */
    public void breakNextDownloadOf(String name) {
        brokenDownloads.add(name);
    }

    /**
     * The next download of the file named {@code name} serves its first read, then stalls: the SFTP subsystem sends
     * nothing more while the SSH connection lives (keep-alives answered), as behind a hung disk, until {@link
     * #endStalls}. So does the next listing of a folder named {@code name}. The event {@code stalled} says when.
     */
    public void stallNextTransferOf(String name) {
        stalls.add(name);
    }

    /** Stalled reads and listings fail now; later ones are served. */
    public void endStalls() {
        stalls.clear();
        java.util.concurrent.CountDownLatch ended = stallsEnd;
        stallsEnd = new java.util.concurrent.CountDownLatch(1);
        ended.countDown();
    }

    private void stall(String username, Path what) throws IOException {
        events.add(new Event(username, "stalled", System.nanoTime()));
        try {
            stallsEnd.await();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        throw new java.io.InterruptedIOException(what + " stalled");
    }

    /**
     * When a client next looks at the file named {@code name} alone (a stat of it, as a client checking the file
     * before its download does; a listing of its folder does not count), the file is first written anew with
     * {@code content}: a supplier that writes again a file it had left unchanged for a while. An event
     * {@code changed-at-look} says when it happened.
     */
    public void changeWhenLookedAtAlone(String name, byte[] content) {
        changesAtLook.put(name, content);
    }

    /** The attributes read now are those of a folder's entry being listed, not of a file looked at alone. */
    private static boolean inDirectoryListing() {
        // MINA's subsystem reads an entry's attributes for its READDIR answer on the same thread
        return StackWalker.getInstance().walk(frames -> frames.anyMatch(f -> f.getMethodName().equals("doReadDir")));
    }

    /** How many bytes clients read from files named {@code name} so far. */
    public long bytesRead(String name) {
        java.util.concurrent.atomic.AtomicLong read = reads.get(name);
        return read == null ? 0 : read.get();
    }

    /**
     * After the first read from the file named {@code name}, the file is written again in place with {@code content}
     * (truncated, then written), as a supplier that uploads a file again while it is being downloaded.
     */
    public void rewriteAfterFirstRead(String name, byte[] content) {
        rewrites.put(name, content);
    }

    /** A file opened for reading: counts what is read, and writes the file again after a first read if asked. */
    private final class CountedReads implements SeekableByteChannel {
        private final SeekableByteChannel channel;
        private final String name;
        private final Path file;
        /** This download stalls at its next read. */
        private boolean stalledAfterFirstRead;

        CountedReads(SeekableByteChannel channel, String name, Path file) {
            this.channel = channel;
            this.name = name;
            this.file = file;
        }

        @Override
        public int read(java.nio.ByteBuffer dst) throws IOException {
            int read = channel.read(dst);
            if (read > 0) {
                reads.computeIfAbsent(name, n -> new java.util.concurrent.atomic.AtomicLong()).addAndGet(read);
            }
            if (read > 0 && brokenDownloads.remove(name)) {
                throw new IOException("the connection broke while " + name + " was downloaded");
            }
            if (read > 0 && stalls.remove(name)) {
                // the first bytes went out; the next read waits, as on a disk that hangs
                stalledAfterFirstRead = true;
            } else if (stalledAfterFirstRead) {
                stalledAfterFirstRead = false;
                stall("", file);
            }
            byte[] content = rewrites.remove(name);
            if (content != null) {
                Files.write(file, content);
            }
            return read;
        }

        @Override
        public int write(java.nio.ByteBuffer src) throws IOException { return channel.write(src); }
        @Override
        public long position() throws IOException { return channel.position(); }
        @Override
        public SeekableByteChannel position(long newPosition) throws IOException {
            channel.position(newPosition);
            return this;
        }
        @Override
        public long size() throws IOException { return channel.size(); }
        @Override
        public SeekableByteChannel truncate(long size) throws IOException {
            channel.truncate(size);
            return this;
        }
        @Override
        public boolean isOpen() { return channel.isOpen(); }
        @Override
        public void close() throws IOException { channel.close(); }
    }

    /** Failures asked for and not happened yet happen no more. */
    public void forgetFailures() {
        failingListings.clear();
        failingReads.clear();
    }

    /** One more login the server accepts. */
    public void addUser(String username, String password) {
        users.put(username, password);
    }

    /**
     * What a login did: {@code login}, {@code list} (a folder listed), {@code read-failed} (an opening failed on
     * purpose) or {@code stalled} (a download or listing began to stall; no login named for a download), at
     * {@code nanoTime}.
     */
    public record Event(String username, String kind, long nanoTime) {
    }

    /** What logins did so far, in order. */
    public List<Event> events() {
        return List.copyOf(events);
    }

    /** How often {@code username} did {@code kind} so far. */
    public long count(String username, String kind) {
        return events.stream().filter(e -> e.username().equals(username) && e.kind().equals(kind)).count();
    }

    public int port() {
        return port;
    }

    /** The folder the server serves as its root. */
    public Path root() {
        return root;
    }
}
