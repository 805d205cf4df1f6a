-- q10: log to file system. Every bid into a table partitioned by day and minute.
-- result: append
CREATE TABLE ${sink} (
  auction BIGINT, bidder BIGINT, price BIGINT, `dateTime` TIMESTAMP(3), extra STRING,
  dt STRING, hm STRING)
  PARTITIONED BY (dt, hm) WITH (${with});
INSERT INTO ${sink}
SELECT auction, bidder, price, `dateTime`, extra,
  DATE_FORMAT(`dateTime`, 'yyyy-MM-dd'), DATE_FORMAT(`dateTime`, 'HH:mm')
FROM bid;
