-- q0-bucket4: q0 into a table partitioned by bucket(auction, 4), as the predecessor's matrix ran it.
-- result: append
-- partition: bucket(auction, 4)
CREATE TABLE ${sink} (auction BIGINT, bidder BIGINT, price BIGINT, `dateTime` TIMESTAMP(3), extra STRING)
  WITH (${with});
INSERT INTO ${sink} SELECT auction, bidder, price, `dateTime`, extra FROM bid;
