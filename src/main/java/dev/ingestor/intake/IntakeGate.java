package dev.ingestor.intake;

import java.util.Map;
import java.util.Set;
import java.util.stream.Collectors;

import dev.ingestor.config.IngestorProperties;
import dev.ingestor.config.SupplierProperties;
import org.apache.camel.Exchange;
import org.apache.camel.Header;
import org.apache.camel.Message;
import org.springframework.stereotype.Component;

/**
 * The checks a file passes before any byte of it is stored: a known supplier, a usable name and a size within
 * the supplier's limit. The limit also bounds the bytes while they are stored (a file that grows, a source that
 * does not say its size), whatever the source.
 */
@Component
public class IntakeGate {

    private final Set<String> suppliers;
    private final Map<String, Limit> limits;

    /** The most bytes of one file, and the property that says so. */
    record Limit(long bytes, String property) {
    }

    public IntakeGate(IngestorProperties properties, IntakeSettings intake) {
        this.suppliers = Set.copyOf(properties.getSuppliers().keySet());
        long global = intake.getMaxFileSize().toBytes();
        this.limits = properties.getSuppliers().entrySet().stream()
                .collect(Collectors.toUnmodifiableMap(Map.Entry::getKey,
                        supplier -> limit(supplier.getKey(), supplier.getValue(), global)));
    }

    private static Limit limit(String code, SupplierProperties supplier, long global) {
        return supplier.getMaxFileSize() == null
                ? new Limit(global, "ingestor.intake.max-file-size")
                : new Limit(supplier.getMaxFileSize().toBytes(), "ingestor.suppliers." + code + ".max-file-size");
    }

    public void check(@Header(IntakeHeaders.SUPPLIER) String supplier, @Header(IntakeHeaders.FILE_NAME) String fileName,
            Exchange exchange) {
        String where = "supplier=" + FileNameRule.printable(supplier) + " file=" + FileNameRule.printable(fileName);
        if (supplier == null || !suppliers.contains(supplier)) {
            throw new RejectedDropException(where, "unknown supplier " + FileNameRule.printable(supplier)
                    + "; configured suppliers are " + suppliers.stream().sorted().toList());
        }
        FileNameRule.problem(fileName).ifPresent(reason -> {
            throw new RejectedDropException(where, reason);
        });
        Message message = exchange.getMessage();
        Limit limit = limits.get(supplier);
        Long sourceLimit = message.getHeader(IntakeHeaders.MAX_SIZE, Long.class);
        if (sourceLimit == null || limit.bytes() < sourceLimit) {
            message.setHeader(IntakeHeaders.MAX_SIZE, limit.bytes());
            message.setHeader(IntakeHeaders.MAX_SIZE_PROPERTY, limit.property());
        }
        // file sources know the size before reading: a file over the limit is not read at all
        Long length = isFileSource(message) ? message.getHeader(Exchange.FILE_LENGTH, Long.class) : null;
        long max = message.getHeader(IntakeHeaders.MAX_SIZE, Long.class);
        if (length != null && length > max) {
            throw new RejectedDropException(where, "the file is " + length + " bytes, larger than the limit of " + max
                    + " bytes ("
                    + message.getHeader(IntakeHeaders.MAX_SIZE_PROPERTY, "ingestor.http.max-file-size", String.class)
                    + ")");
        }
    }

    private static boolean isFileSource(Message message) {
        Object source = message.getHeader(IntakeHeaders.SOURCE);
        return "file-drop".equals(source) || "sftp".equals(source);
    }

    /** What a body of {@code supplier} longer than its limit is refused with. */
    public ContentTooLargeException tooLarge(String supplier) {
        Limit limit = limits.get(supplier);
        return new ContentTooLargeException(limit.bytes(), limit.property());
    }

    /** The most bytes {@link #check} lets a file of this configured supplier have. */
    public long maxSize(String supplier) {
        return limits.get(supplier).bytes();
    }

    public boolean isSupplier(String code) {
        return suppliers.contains(code);
    }

    public Set<String> suppliers() {
        return suppliers;
    }
}
