package io.latelake.core.event;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.latelake.core.config.ConfigLoader;
import io.latelake.core.config.LakeConfigException;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;

class EventSchemaTest {
  private static EventSchema load(String... sets) {
    return EventSchema.fromConfig(ConfigLoader.load(Optional.empty(), List.of(sets)));
  }

  @Test
  void defaultsAreAStringIdAndAFloorIn2000() {
    EventSchema s =
        load(
            "lake.event.fields=[{name=page, type=string}, "
                + "{name=value, type=long, blank-as-null=true}]");
    assertThat(s.idType()).isEqualTo(FieldType.STRING);
    assertThat(s.minEventTime()).isEqualTo(Instant.parse("2000-01-01T00:00:00Z"));
    assertThat(s.fields())
        .containsExactly(
            new FieldSpec("page", FieldType.STRING, false),
            new FieldSpec("value", FieldType.LONG, true));
    assertThat(load("lake.event.id-type=LONG").idType()).isEqualTo(FieldType.LONG);
  }

  @Test
  void badValuesNameTheKeyAndTheValue() {
    assertThatThrownBy(() -> load("lake.event.min-event-time=yesterday"))
        .isInstanceOf(LakeConfigException.class)
        .hasMessage(
            "Invalid value 'yesterday' for key 'lake.event.min-event-time': expected an "
                + "ISO-8601 UTC instant such as 2000-01-01T00:00:00Z");
    assertThatThrownBy(() -> load("lake.event.min-event-time=\"1970-01-01T00:00:00Z\""))
        .isInstanceOf(LakeConfigException.class)
        .hasMessage(
            "Invalid value '1970-01-01T00:00:00Z' for key 'lake.event.min-event-time': "
                + "must be after 1970-01-01T00:00:00Z, where Spark's event-time watermark starts");
    assertThatThrownBy(() -> load("lake.event.id-type=double"))
        .isInstanceOf(LakeConfigException.class)
        .hasMessage(
            "Invalid value 'double' for key 'lake.event.id-type': expected string (JSON "
                + "strings only) or long (JSON whole numbers only)");
    assertThatThrownBy(
            () -> load("lake.event.fields=[{name=page, type=string, " + "blank-as-null=maybe}]"))
        .isInstanceOf(LakeConfigException.class)
        .hasMessage(
            "Invalid value 'maybe' for key 'lake.event.fields[0].blank-as-null': "
                + "expected true or false");
    assertThatThrownBy(() -> load("lake.event.fields=[{name=page, type=string, blank=true}]"))
        .isInstanceOf(LakeConfigException.class)
        .hasMessage(
            "Unknown key 'lake.event.fields[0].blank': a field has only name, type and "
                + "blank-as-null");
  }
}
