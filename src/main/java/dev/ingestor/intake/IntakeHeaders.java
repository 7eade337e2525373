package dev.ingestor.intake;

/** Message headers and exchange properties every source sets before it hands a file to intake. */
public final class IntakeHeaders {

    /** Supplier code, the folder name for file drops. */
    public static final String SUPPLIER = "IngestorSupplier";
    /** The file name as the supplier gave it (metadata only: the content decides identity). */
    public static final String FILE_NAME = "IngestorFileName";
    /** file-drop, sftp or http. */
    public static final String SOURCE = "IngestorSource";
    /**
     * Who submitted the file, kept with its job: {@code supplier:<CODE>} or {@code admin} for an API key,
     * {@code sftp://user@host:port/dir} for an SFTP server, {@code drop:<folder>} for a file drop.
     */
    public static final String SUBMITTED_BY = "IngestorSubmittedBy";
    /** Set by intake: {@code supplier:sha256}. */
    public static final String KEY = "IngestorKey";
    /** The most bytes a source accepts for one file (HTTP pushes); absent means no limit. */
    public static final String MAX_SIZE = "IngestorMaxSize";
    /** The property that sets {@link #MAX_SIZE}, named when a file is over it. */
    public static final String MAX_SIZE_PROPERTY = "IngestorMaxSizeProperty";
    /** Exchange property set by intake: the {@link ReceivedContent} not yet in place. */
    public static final String RECEIVED = "IngestorReceived";
    /** Exchange property: the {@link FileState} a dropped file was read in, for the move after intake. */
    public static final String READ_AS = "IngestorReadAs";
    /**
     * Exchange property: the {@link FileState} (size and time of change) a dropped file was found settled in by its
     * route's listing; a file opened otherwise is not read ({@link FileChangedSinceSettledException}).
     */
    public static final String SETTLED_AS = "IngestorSettledAs";
    /** Exchange property set by intake: done, duplicate or rejected; file sources move the file by it. */
    public static final String OUTCOME = "IngestorOutcome";
    /**
     * Exchange property set by intake: the id of the arrival's job. Also the header a supplier's hook route is
     * sent with each record (none in the admin preview).
     */
    public static final String JOB_ID = "IngestorJobId";

    private IntakeHeaders() {
    }
}
