-- q0-read: q0 whose bids were first landed in an Iceberg table and are read back through the
-- Iceberg source (FLIP-27): the read path and the write path of one job.
-- result: append
-- reads: landed bid
CREATE TABLE ${sink} (auction BIGINT, bidder BIGINT, price BIGINT, `dateTime` TIMESTAMP(6), extra STRING)
  WITH (${with});
INSERT INTO ${sink} SELECT auction, bidder, price, `dateTime`, extra FROM ${landed_bid};
