import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.stream.Collectors;

import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;

/** Prints the sum of a topic's end offsets: java -cp 'lib/*' KafkaEndOffsets.java BOOTSTRAP TOPIC (ops/bench). */
public class KafkaEndOffsets {
    public static void main(String[] args) {
        Properties props = new Properties();
        props.put("bootstrap.servers", args[0]);
        props.put("key.deserializer", ByteArrayDeserializer.class.getName());
        props.put("value.deserializer", ByteArrayDeserializer.class.getName());
        try (KafkaConsumer<byte[], byte[]> consumer = new KafkaConsumer<>(props)) {
            List<TopicPartition> partitions = consumer.partitionsFor(args[1]).stream()
                    .map(p -> new TopicPartition(p.topic(), p.partition())).collect(Collectors.toList());
            Map<TopicPartition, Long> ends = consumer.endOffsets(partitions);
            System.out.println(ends.values().stream().mapToLong(Long::longValue).sum());
        }
    }
}
